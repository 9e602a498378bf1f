/* var_uses.c: placeholder until its owner lands it */
