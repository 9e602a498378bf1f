/* check_stmt.c: placeholder until its owner lands it */
