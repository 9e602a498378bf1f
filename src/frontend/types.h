/* types.h: placeholder */
