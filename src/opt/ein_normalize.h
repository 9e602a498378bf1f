/* ein_normalize.h: placeholder */
