/* proxy.h: placeholder */
