/* index_expr.c: placeholder until its owner lands it */
