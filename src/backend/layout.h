/* layout.h: placeholder */
