/* ast_print.c -- print an AST as Diderot 2.0 source (--dump=ast).
 *
 * Parentheses come from the E_PAREN nodes the parser keeps; the printer
 * adds its own only where a tree built by other code would otherwise read
 * back differently (the precedence levels of doc/language.md §5.1).
 * 1.0-only forms print as their 2.0 equivalents; the output always re-parses to the same tree, so
 * print(parse(print(parse(src)))) == print(parse(src)).
 */
#include "frontend/ast_print.h"

#include <string.h>

typedef struct Printer {
  FILE *out;
} Printer;

/* Binding levels: those of doc/language.md §5.1, with composition (∘,
 * parsed and then rejected) between the products and the prefix
 * operators (higher binds tighter). Special forms such as
 * real(e) sit below the suffix level because they take no suffixes. */
enum {
  LV_COND = 1,
  LV_RANGE,
  LV_OR,
  LV_AND,
  LV_CMP,
  LV_ADD,
  LV_MUL,
  LV_COMPOSE,
  LV_PREFIX,
  LV_POW,
  LV_SPECIAL,
  LV_SUFFIX,
  LV_DIFF,
  LV_ATOM,
};

/* Identifiers of a 1.0 program that are 2.0 keywords get a trailing
 * apostrophe (an identifier character) so that the 2.0 output parses. */
typedef struct KeywordEntry {
  const char *word;
  int dialects;
} KeywordEntry;

static const KeywordEntry printer_keywords[] = {
#define TOK(name, spelling)
#define KEYWORD(name, word, dialects) {word, dialects},
#include "frontend/tokens.def"
#undef TOK
};

static void print_name(Printer *P, const char *name) {
  fputs(name ? name : "?", P->out);
  if (!name) return;
  for (size_t i = 0; i < sizeof printer_keywords / sizeof printer_keywords[0]; i++)
    if ((printer_keywords[i].dialects & DIALECT_BIT_V2) && !strcmp(printer_keywords[i].word, name)) {
      fputc('\'', P->out);
      return;
    }
}

static void print_expr(Printer *P, const Expr *e, int min);
static void print_type(Printer *P, const AstType *t);

static int binary_level(AstOp op) {
  switch (op) {
  case OP_OR: return LV_OR;
  case OP_AND: return LV_AND;
  case OP_LT: case OP_LE: case OP_EQ: case OP_NE: case OP_GE: case OP_GT: return LV_CMP;
  case OP_ADD: case OP_SUB: case OP_AT: return LV_ADD;
  case OP_COMPOSE: return LV_COMPOSE;
  case OP_POW: return LV_POW;
  default: return LV_MUL;
  }
}

static int expr_level(const Expr *e) {
  switch (e->kind) {
  case E_COND: return LV_COND;
  case E_RANGE: return LV_RANGE;
  case E_BINARY: return binary_level(e->op);
  case E_UNARY: return (e->op == OP_NEG || e->op == OP_NOT) ? LV_PREFIX : LV_DIFF;
  case E_APPLY: case E_SUBSCRIPT: case E_SELECT: return LV_SUFFIX;
  case E_REAL_CONV: case E_INT_CONV: case E_LOAD_SEQ: case E_LOAD_IMAGE: case E_IDENTITY:
  case E_ZEROS: case E_NAN:
    return LV_SPECIAL;
  default: return LV_ATOM;
  }
}

/* Levels required of the two operands of a binary operator: the left
 * operand one level up for right-grouped operators, the right one level
 * up for left-grouped ones. */
static void binary_operand_levels(AstOp op, int *left, int *right) {
  int lv = binary_level(op);
  switch (op) {
  case OP_OR: case OP_AND:
    *left = lv + 1;
    *right = lv;
    break;
  case OP_POW: /* suffix_expr ^ pow_expr */
    *left = LV_SPECIAL;
    *right = LV_POW;
    break;
  case OP_COMPOSE:
    *left = lv;
    *right = LV_PREFIX;
    break;
  default:
    *left = lv;
    *right = lv + 1;
    break;
  }
}

/* Does the printed form begin / end with '|'? Two bars in a row would
 * read back as '||'. */
static bool starts_with_bar(const Expr *e) {
  switch (e->kind) {
  case E_NORM: return true;
  case E_BINARY: case E_COND: case E_RANGE: case E_APPLY: case E_SUBSCRIPT: case E_SELECT:
    return starts_with_bar(e->a);
  default: return false;
  }
}

static bool ends_with_bar(const Expr *e) {
  switch (e->kind) {
  case E_NORM: return true;
  case E_BINARY: case E_COND: case E_RANGE: return ends_with_bar(e->b);
  case E_UNARY: return ends_with_bar(e->a);
  default: return false;
  }
}

static void print_list(Printer *P, const ExprList *l) {
  for (const Expr *x = l->head; x; x = x->next) {
    if (x != l->head) fputs(", ", P->out);
    print_expr(P, x, LV_COND);
  }
}

static void print_string(Printer *P, const Token *t) {
  static const char escapes[] = "\aa\bb\ff\nn\rr\tt\vv\\\\\"\"";
  fputc('"', P->out);
  for (size_t i = 0; t->text && i < t->len; i++) {
    unsigned char c = (unsigned char)t->text[i];
    const char *esc = c ? strchr(escapes, c) : NULL;
    if (esc && (esc - escapes) % 2 == 0)
      fprintf(P->out, "\\%c", esc[1]);
    else if (c >= 32 && c <= 126)
      fputc(c, P->out);
    else
      fprintf(P->out, "\\%03u", c); /* three decimal digits (§1.5) */
  }
  fputc('"', P->out);
}

static void print_iters(Printer *P, const IterList *l) {
  for (const Iter *it = l->head; it; it = it->next) {
    if (it != l->head) fputs(", ", P->out);
    print_name(P, it->name);
    fputs(" in ", P->out);
    print_expr(P, it->src, LV_COND);
  }
}

static const char *token_text(const Token *t) { return t->text ? t->text : "?"; }

static void print_expr_inner(Printer *P, const Expr *e) {
  FILE *o = P->out;
  switch (e->kind) {
  case E_VAR: print_name(P, e->name); break;
  case E_KERNEL_CONT:
    print_name(P, e->name);
    fprintf(o, "#%s", token_text(&e->tok));
    break;
  case E_INT: case E_REAL: fputs(token_text(&e->tok), o); break;
  case E_STRING: print_string(P, &e->tok); break;
  case E_BOOL: fputs(e->bval ? "true" : "false", o); break;
  case E_BINARY: {
    int l, r;
    binary_operand_levels(e->op, &l, &r);
    print_expr(P, e->a, l);
    fprintf(o, e->op == OP_POW ? "%s" : " %s ", ast_op_spelling(e->op));
    print_expr(P, e->b, r);
    break;
  }
  case E_UNARY:
    fputs(ast_op_spelling(e->op), o);
    print_expr(P, e->a, e->op == OP_NEG || e->op == OP_NOT ? LV_PREFIX : LV_DIFF);
    break;
  case E_COND:
    print_expr(P, e->a, LV_RANGE);
    fputs(" if ", o);
    print_expr(P, e->c, LV_COND);
    fputs(" else ", o);
    print_expr(P, e->b, LV_COND);
    break;
  case E_RANGE:
    print_expr(P, e->a, LV_OR);
    fputs(" .. ", o);
    print_expr(P, e->b, LV_OR);
    break;
  case E_APPLY: case E_SUBSCRIPT:
    print_expr(P, e->a, LV_SUFFIX);
    fputc(e->kind == E_APPLY ? '(' : '[', o);
    print_list(P, &e->args);
    fputc(e->kind == E_APPLY ? ')' : ']', o);
    break;
  case E_SLICE_ALL: fputc(':', o); break;
  case E_SELECT:
    print_expr(P, e->a, LV_SUFFIX);
    /* "1.x" would lex as a malformed real */
    fputs(e->a->kind == E_INT ? " ." : ".", o);
    print_name(P, e->name);
    break;
  case E_REAL_CONV: case E_INT_CONV: case E_LOAD_SEQ: case E_LOAD_IMAGE:
    fputs(e->kind == E_REAL_CONV  ? "real("
          : e->kind == E_INT_CONV ? "int("
          : e->kind == E_LOAD_SEQ ? "load_sequence("
                                  : "load_image(",
          o);
    print_expr(P, e->a, LV_COND);
    fputc(')', o);
    break;
  case E_IDENTITY:
    fputs("identity[", o);
    print_expr(P, e->a, LV_COND);
    fputc(']', o);
    break;
  case E_ZEROS: case E_NAN:
    fputs(e->kind == E_ZEROS ? "zeros" : "nan", o);
    if (e->kind == E_ZEROS || e->has_shape) {
      fputc('[', o);
      print_list(P, &e->args);
      fputc(']', o);
    }
    break;
  case E_SEQ:
    fputc('{', o);
    print_list(P, &e->args);
    fputc('}', o);
    break;
  case E_TENSOR:
    fputc('[', o);
    print_list(P, &e->args);
    fputc(']', o);
    break;
  case E_COMPREHENSION:
    fputc('{', o);
    print_expr(P, e->a, LV_COND);
    fputs(" | ", o);
    print_iters(P, &e->iters);
    fputc('}', o);
    break;
  case E_NORM:
    fputs(starts_with_bar(e->a) ? "| " : "|", o);
    print_expr(P, e->a, LV_COND);
    fputs(ends_with_bar(e->a) ? " |" : "|", o);
    break;
  case E_PAREN:
    fputc('(', o);
    print_expr(P, e->a, LV_COND);
    fputc(')', o);
    break;
  }
}

/* Print `e` where the grammar wants level `min` or tighter. */
static void print_expr(Printer *P, const Expr *e, int min) {
  if (!e) {
    fputs("?", P->out);
    return;
  }
  bool paren = expr_level(e) < min;
  if (paren) fputc('(', P->out);
  print_expr_inner(P, e);
  if (paren) fputc(')', P->out);
}

/* tensor[3,3]: written without spaces, as in diagnostics. */
static void print_shape(Printer *P, const ExprList *l) {
  fputc('[', P->out);
  for (const Expr *x = l->head; x; x = x->next) {
    if (x != l->head) fputc(',', P->out);
    print_expr(P, x, LV_COND);
  }
  fputc(']', P->out);
}

static void print_type(Printer *P, const AstType *t) {
  FILE *o = P->out;
  if (!t) {
    fputs("?", o);
    return;
  }
  switch (t->kind) {
  case AT_BOOL: fputs("bool", o); break;
  case AT_INT: fputs("int", o); break;
  case AT_REAL: fputs("real", o); break;
  case AT_STRING: fputs("string", o); break;
  case AT_TENSOR:
    fputs("tensor", o);
    print_shape(P, &t->shape);
    break;
  case AT_VEC: fprintf(o, "vec%d", t->n); break;
  case AT_MAT: fprintf(o, "mat%d", t->n); break;
  case AT_IMAGE: case AT_FIELD:
    fputs(t->kind == AT_IMAGE ? "image" : "field", o);
    if (t->kind == AT_FIELD && t->has_cont) fprintf(o, "#%s", token_text(&t->cont));
    fputc('(', o);
    print_expr(P, t->dim, LV_COND);
    fputc(')', o);
    print_shape(P, &t->shape);
    break;
  case AT_KERNEL: fprintf(o, "kernel#%s", token_text(&t->cont)); break;
  case AT_NAMED: print_name(P, t->name); break;
  case AT_SEQ:
    print_type(P, t->elem);
    fputc('[', o);
    if (t->len) print_expr(P, t->len, LV_COND);
    fputc(']', o);
    break;
  }
}

/* --------------------------------------------------------- statements */

static void print_indent(Printer *P, int ind) {
  for (int i = 0; i < ind; i++) fputs("    ", P->out);
}

static void print_stmt(Printer *P, const Stmt *s, int ind);
static void print_stmt_tail(Printer *P, const Stmt *s, int ind);

static void print_block(Printer *P, const Stmt *s, int ind) {
  fputs("{\n", P->out);
  for (const Stmt *x = s->body.head; x; x = x->next) print_stmt(P, x, ind + 1);
  print_indent(P, ind);
  fputc('}', P->out);
}

/* `s` ends with an if that has no else: an else after it would attach
 * to that inner if. */
static bool ends_with_open_if(const Stmt *s) {
  if (s->kind == S_IF) return !s->els || ends_with_open_if(s->els);
  return false;
}

/* The statement after "if (c)" or "else". Returns true when the cursor is
 * left after a closing brace, false when at the start of a new line. */
static bool print_branch(Printer *P, const Stmt *s, int ind, bool force_block) {
  if (s->kind == S_BLOCK) {
    fputc(' ', P->out);
    print_block(P, s, ind);
    return true;
  }
  if (force_block) {
    fputs(" {\n", P->out);
    print_stmt(P, s, ind + 1);
    print_indent(P, ind);
    fputc('}', P->out);
    return true;
  }
  fputc('\n', P->out);
  print_stmt(P, s, ind + 1);
  return false;
}

static void print_assign_op(Printer *P, AstOp op) {
  if (op >= OP__COUNT) fputs(" = ", P->out);
  else fprintf(P->out, " %s= ", ast_op_spelling(op));
}

/* Prints from the current column; ends with a newline. */
static void print_stmt_tail(Printer *P, const Stmt *s, int ind) {
  FILE *o = P->out;
  switch (s->kind) {
  case S_BLOCK:
    print_block(P, s, ind);
    fputc('\n', o);
    return;
  case S_IF: {
    fputs("if (", o);
    print_expr(P, s->cond, LV_COND);
    fputc(')', o);
    bool after_brace = print_branch(P, s->then, ind, s->els && ends_with_open_if(s->then));
    if (s->els) {
      if (after_brace) {
        fputs(" else", o);
      } else {
        print_indent(P, ind);
        fputs("else", o);
      }
      if (s->els->kind == S_IF) {
        fputc(' ', o);
        print_stmt_tail(P, s->els, ind);
        return;
      }
      after_brace = print_branch(P, s->els, ind, false);
    }
    if (after_brace) fputc('\n', o);
    return;
  }
  case S_FOREACH:
    fputs("foreach (", o);
    print_type(P, s->type);
    fputc(' ', o);
    if (s->iter) {
      print_name(P, s->iter->name);
      fputs(" in ", o);
      print_expr(P, s->iter->src, LV_COND);
    }
    fputc(')', o);
    /* 2.0 wants a block body; a 1.0 single statement gets braces */
    print_branch(P, s->then, ind, true);
    fputc('\n', o);
    return;
  case S_PRINT:
    fputs("print(", o);
    print_list(P, &s->args);
    fputs(");\n", o);
    return;
  case S_NEW:
    fputs("new ", o);
    print_name(P, s->name);
    fputc('(', o);
    print_list(P, &s->args);
    fputs(");\n", o);
    return;
  case S_STABILIZE: fputs("stabilize;\n", o); return;
  case S_DIE: fputs("die;\n", o); return;
  case S_CONTINUE: fputs("continue;\n", o); return;
  case S_RETURN:
    fputs("return ", o);
    print_expr(P, s->expr, LV_COND);
    fputs(";\n", o);
    return;
  case S_DECL:
    print_type(P, s->type);
    fputc(' ', o);
    print_name(P, s->name);
    if (s->expr) {
      fputs(" = ", o);
      print_expr(P, s->expr, LV_COND);
    }
    fputs(";\n", o);
    return;
  case S_ASSIGN:
    print_name(P, s->name);
    print_assign_op(P, s->op);
    print_expr(P, s->expr, LV_COND);
    fputs(";\n", o);
    return;
  }
}

static void print_stmt(Printer *P, const Stmt *s, int ind) {
  print_indent(P, ind);
  print_stmt_tail(P, s, ind);
}

/* ------------------------------------------------------- declarations */

static void print_params(Printer *P, const ParamList *l) {
  fputc('(', P->out);
  for (const Param *p = l->head; p; p = p->next) {
    if (p != l->head) fputs(", ", P->out);
    if (p->type) {
      print_type(P, p->type);
      fputc(' ', P->out);
    }
    print_name(P, p->name);
  }
  fputc(')', P->out);
}

static void print_decl(Printer *P, const Decl *d, int ind) {
  FILE *o = P->out;
  print_indent(P, ind);
  switch (d->kind) {
  case D_CONST: fputs("const ", o); break;
  case D_INPUT: fputs("input ", o); break;
  case D_FUNC: fputs("function ", o); break;
  case D_VAR:
    if (d->is_output) fputs("output ", o);
    if (d->is_position) fputs("position ", o);
    break;
  case D_FIELD_FUNC: break;
  }
  print_type(P, d->type);
  fputc(' ', o);
  print_name(P, d->name);
  if (d->kind == D_INPUT && d->has_desc) {
    fputs(" (", o);
    print_string(P, &d->desc);
    fputc(')', o);
  }
  if (d->kind == D_FUNC || d->kind == D_FIELD_FUNC) print_params(P, &d->params);
  if (d->kind == D_FUNC && d->body) {
    fputc(' ', o);
    print_block(P, d->body, ind);
    fputc('\n', o);
    return;
  }
  if (d->init) {
    fputs(" = ", o);
    print_expr(P, d->init, LV_COND);
  }
  fputs(";\n", o);
}

/* "kw {...}" on its own line(s). */
static void print_section(Printer *P, const char *kw, const Stmt *body, int ind) {
  print_indent(P, ind);
  fprintf(P->out, "%s ", kw);
  if (body->kind == S_BLOCK) {
    print_block(P, body, ind);
  } else { /* not built by the parser: wrap it */
    fputs("{\n", P->out);
    print_stmt(P, body, ind + 1);
    print_indent(P, ind);
    fputc('}', P->out);
  }
  fputc('\n', P->out);
}

static void print_strand(Printer *P, const StrandDecl *s) {
  static const char *const method_names[M__COUNT] = {"start", "update", "stabilize"};
  fputs("strand ", P->out);
  print_name(P, s->name);
  fputc(' ', P->out);
  print_params(P, &s->params);
  fputs(" {\n", P->out);
  for (const Decl *d = s->state.head; d; d = d->next) print_decl(P, d, 1);
  if (s->init) print_section(P, "initialize", s->init, 1);
  for (int k = 0; k < M__COUNT; k++)
    if (s->methods[k] && s->methods[k]->body) print_section(P, method_names[k], s->methods[k]->body, 1);
  fputs("}\n", P->out);
}

void ast_print_program(FILE *out, const Program *p) {
  Printer P = {out};
  fputs("#version 2.0\n", out);
  if (!p) return;
  if (p->globals.head) fputc('\n', out);
  for (const Decl *d = p->globals.head; d; d = d->next) print_decl(&P, d, 0);
  if (p->global_init) {
    fputc('\n', out);
    print_section(&P, "initialize", p->global_init, 0);
  }
  if (p->strand) {
    fputc('\n', out);
    print_strand(&P, p->strand);
  }
  if (p->global_start || p->global_update) fputc('\n', out);
  if (p->global_start) print_section(&P, "start", p->global_start, 0);
  if (p->global_update) print_section(&P, "update", p->global_update, 0);
  if (p->create) {
    fputc('\n', out);
    fputs(p->create->kind == CREATE_ARRAY ? "create_array {" : "create_collection {", out);
    print_expr(&P, p->create->expr, LV_COND);
    fputs(" | ", out);
    print_iters(&P, &p->create->iters);
    fputs("};\n", out);
  }
}

void ast_print_expr(FILE *out, const Expr *e) {
  Printer P = {out};
  print_expr(&P, e, LV_COND);
}

void ast_print_type(FILE *out, const AstType *t) {
  Printer P = {out};
  print_type(&P, t);
}
