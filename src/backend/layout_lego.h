/* layout_lego.h: placeholder */
