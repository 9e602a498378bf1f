/* parser_impl.h: placeholder */
