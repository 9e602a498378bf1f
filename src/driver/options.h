/* options.h: placeholder */
