/* ast_print.h -- print an AST as Diderot 2.0 source (--dump=ast).
 *
 * The output parses back to the same tree, whatever dialect the input was
 * written in (1.0 forms print as their 2.0 equivalents).
 */
#ifndef DIDEROT_FRONTEND_AST_PRINT_H
#define DIDEROT_FRONTEND_AST_PRINT_H

#include <stdio.h>

#include "frontend/ast.h"

void ast_print_program(FILE *out, const Program *p);
void ast_print_expr(FILE *out, const Expr *e);
void ast_print_type(FILE *out, const AstType *t);

#endif
