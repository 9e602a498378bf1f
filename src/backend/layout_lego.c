/* layout_lego.c: placeholder until its owner lands it */
