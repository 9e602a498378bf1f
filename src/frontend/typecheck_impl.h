/* typecheck_impl.h: placeholder */
