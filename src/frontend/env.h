/* env.h: placeholder */
