/* ast_print.c: placeholder until its owner lands it */
