/* const_eval.h: placeholder */
