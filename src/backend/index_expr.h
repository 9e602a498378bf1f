/* index_expr.h: placeholder */
