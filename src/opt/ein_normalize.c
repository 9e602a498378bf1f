/* ein_normalize.c: placeholder until its owner lands it */
