/* kernel.h: placeholder */
