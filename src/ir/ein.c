/* ein.c: placeholder until its owner lands it */
