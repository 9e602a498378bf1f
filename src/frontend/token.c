/* token.c: placeholder until its owner lands it */
