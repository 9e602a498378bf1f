/* ein.h: placeholder */
