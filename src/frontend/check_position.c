/* check_position.c -- which state variable places a strand for sphere()
 * (doc/language.md §9.2, §9.3): the one declared 'position' (an
 * extension), else the one named 'pos' as in the original language. */
#include <string.h>

#include "frontend/typecheck_impl.h"

/* real, tensor[1..3] (vec2, vec3): the types of §9.2's 'pos'. */
static bool position_type_ok(const Type *pt) {
  return pt->kind == TY_TENSOR &&
         (pt->shape.order == 0 || (pt->shape.order == 1 && pt->shape.dims[0] <= 3));
}

void tc_state_position(Tc *t, Symbol *ss, Decl *d, Symbol *s) {
  if (d->is_position) {
    tc_extension(t, EXT_POSITION, d->position_span);
    const Type *pt = type_prune(s->ty);
    if (!type_is_error(pt) && !position_type_ok(pt))
      diag_report(t->diag, ERR_POSITION_TYPE, d->name_span, d->name, type_str(t->arena, pt));
    if (ss->pos && ss->pos->decl && ss->pos->decl->is_position) {
      diag_report(t->diag, ERR_POSITION_TWICE, d->name_span, ss->pos->name, d->name);
      return;
    }
    ss->pos = s;   /* over a 'pos' declared before it */
    return;
  }
  /* 'pos' places the strand unless another variable is declared 'position' */
  if (d->name && strcmp(d->name, "pos") == 0 && !(ss->pos && ss->pos->decl &&
                                                  ss->pos->decl->is_position))
    ss->pos = s;
}
