/* grammar_v1.y -- lemon grammar of Diderot 1.0 (doc/language.md §11: what 1.0
 * spells differently).
 *
 * Precedence is encoded by one nonterminal per level of the precedence
 * table (doc/language.md §5.1); the only
 * precedence declarations resolve the dangling else. Actions only build
 * AST nodes (parser_impl.h helpers); syntax errors are detected and
 * reported by parser.c before a bad token reaches the parser.
 */
%name ParseV1
%token_prefix TKV1_
%token_type {Token}
%extra_argument {ParseState *st}
%stack_size 0
%start_symbol root

%include {
#include <stdlib.h>

#include "frontend/parser_impl.h"
}

/* Every token of tokens.def, in its order (codes == TokenKind values). */
%token ID INT REAL STRING VERSION BOOL CONST CONTINUE CREATE_ARRAY
  CREATE_COLLECTION DIE ELSE FALSE FIELD FOREACH FUNCTION GLOBAL
  IDENTITY IF IMAGE IN INITIALIZE INITIALLY INPUT KW_INT KERNEL LOAD
  LOAD_IMAGE LOAD_SEQUENCE MAT2 MAT3 MAT4 KW_NAN NEW OUTPUT PRINT KW_REAL
  RETURN STABILIZE START STRAND KW_STRING TENSOR TRUE UPDATE VEC2 VEC3
  VEC4 ZEROS OROR ANDAND LT LE EQEQ NEQ GE GT PLUS MINUS STAR SLASH
  PERCENT CARET AT LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA
  SEMI COLON HASH BANG EQ PLUSEQ MINUSEQ STAREQ SLASHEQ PERCENTEQ BAR
  DOT DOTDOT CONVOLVE DOT_PROD CROSS OUTER COMPOSE NABLA NABLA_OUTER
  NABLA_DOT NABLA_CROSS.

/* Dangling else: `if` without `else` (pseudo-token THEN) binds weaker
 * than ELSE, so an else goes to the nearest if. */
%nonassoc THEN.
%nonassoc ELSE.

/* Never reached: parser.c checks every token first. */
%syntax_error {
  (void)yymajor;
  (void)TOKEN;
  st->lemon_failed = true;
}
/* Values live in the arena: nothing to destroy (this silences unused-
 * variable warnings in the generated yy_destructor). */
%token_destructor {
  (void)st;
  (void)yypminor;
}
%parse_failure { st->lemon_failed = true; }
%stack_overflow { st->lemon_failed = true; }

/* ------------------------------------------------------------ program */

/* GlobalDecl* StrandDecl ("global" Block)? "initially" (Array | Collection) ";"
 * The version line is optional in 1.0. */
root ::= version_opt gdecls(G) strand(S) gupdate(U) create(C). {
  Program *p = ARENA_NEW(st->arena, Program);
  p->dialect = DIALECT_V1;
  p->globals = G;
  p->strand = S;
  p->global_update = U;
  p->create = C;
  st->prog = p;
}

version_opt ::= .
version_opt ::= VERSION.

semi_opt ::= .
semi_opt ::= SEMI.

%type gdecls {DeclList}
gdecls(A) ::= . { A = (DeclList){0}; }
gdecls(A) ::= gdecls(A) gdecl(D). { ast_decl_append(&A, D); }

%type init_opt {Expr *}
init_opt(A) ::= . { A = NULL; }
init_opt(A) ::= EQ expr(E). { A = E; }

/* A global without initializer parses; the typechecker reports it
 * (ERR_GLOBAL_NEEDS_INIT), which says more than a syntax error. */
%type gdecl {Decl *}
gdecl(A) ::= INPUT(K) type(T) ID(N) init_opt(E) SEMI(S). {
  A = parser_input_decl(st, K, T, N, NULL, E, S);
  parser_v1_check_input_init(A);
}
gdecl(A) ::= INPUT(K) type(T) ID(N) LPAREN STRING(D) RPAREN init_opt(E) SEMI(S). {
  A = parser_input_decl(st, K, T, N, &D, E, S);
  parser_v1_check_input_init(A);
}
gdecl(A) ::= type(T) ID(N) init_opt(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, T->span, T, N, E, S);
}
gdecl(A) ::= FUNCTION(K) type(T) ID(N) LPAREN params_opt(P) RPAREN EQ expr(E) SEMI(S). {
  A = parser_func_decl(st, K, T, N, P, E, NULL, S.span);
}
gdecl(A) ::= FUNCTION(K) type(T) ID(N) LPAREN params_opt(P) RPAREN block(B) semi_opt. {
  A = parser_func_decl(st, K, T, N, P, NULL, B, B->span);
}

%type params_opt {ParamList}
params_opt(A) ::= . { A = (ParamList){0}; }
params_opt(A) ::= params(A).
%type params {ParamList}
params(A) ::= param(P). {
  A = (ParamList){0};
  ast_param_append(&A, P);
}
params(A) ::= params(A) COMMA param(P). { ast_param_append(&A, P); }
%type param {Param *}
param(A) ::= type(T) ID(N). { A = ast_param(st->arena, T, N.text, N.span); }

%type gupdate {Stmt *}
gupdate(A) ::= . { A = NULL; }
gupdate(A) ::= GLOBAL block(B) semi_opt. { A = B; }

/* ------------------------------------------------------------- strand */

%type strand {StrandDecl *}
strand(A) ::= STRAND(K) ID(N) LPAREN params_opt(P) RPAREN LBRACE state_decls(D)
              methods(M) RBRACE(R) semi_opt. {
  A = parser_strand_end(M, K, N, P, D, NULL, R);
}

/* State variables need initializers in 1.0. */
%type state_decls {DeclList}
state_decls(A) ::= . { A = (DeclList){0}; }
state_decls(A) ::= state_decls(A) state_decl(D). { ast_decl_append(&A, D); }
%type state_decl {Decl *}
state_decl(A) ::= type(T) ID(N) EQ expr(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, T->span, T, N, E, S);
}
state_decl(A) ::= OUTPUT(K) type(T) ID(N) EQ expr(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, K.span, T, N, E, S);
  A->is_output = true;
}
/* An extension: 'position' (a word, not a keyword) marks the state
 * variable whose value places the strand for sphere() (doc/language.md
 * §9.3); parser_state_position checks the word. A keyword type must
 * follow it, so that 'position x' stays a declaration of type position. */
state_decl(A) ::= ID(Q) kw_type(T) ID(N) EQ expr(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, Q.span, T, N, E, S);
  parser_state_position(st, A, Q);
}
state_decl(A) ::= ID(Q) OUTPUT kw_type(T) ID(N) EQ expr(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, Q.span, T, N, E, S);
  A->is_output = true;
  parser_state_position(st, A, Q);
}
state_decl(A) ::= OUTPUT(K) ID(Q) kw_type(T) ID(N) EQ expr(E) SEMI(S). {
  A = parser_var_decl(st, D_VAR, K.span, T, N, E, S);
  A->is_output = true;
  parser_state_position(st, A, Q);
}

%type methods {StrandDecl *}
methods(A) ::= . { A = parser_strand_begin(st); }
methods(A) ::= methods(A) UPDATE(K) block(B) semi_opt. { parser_strand_method(st, A, M_UPDATE, K, B); }
methods(A) ::= methods(A) STABILIZE(K) block(B) semi_opt. {
  parser_strand_method(st, A, M_STABILIZE, K, B);
}

/* ----------------------------------------------------------- creation */

/* initially [ S(args) | i in lo .. hi, ... ];  or  initially { ... }; */
%type create {Create *}
create(A) ::= INITIALLY(K) LBRACE expr(E) BAR citers(I) RBRACE(R) SEMI. {
  A = parser_create(st, CREATE_COLLECTION, K, E, I, R);
}
create(A) ::= INITIALLY(K) LBRACKET expr(E) BAR citers(I) RBRACKET(R) SEMI. {
  A = parser_create(st, CREATE_ARRAY, K, E, I, R);
}

%type citers {IterList}
citers(A) ::= citer(I). {
  A = (IterList){0};
  ast_iter_append(&A, I);
}
citers(A) ::= citers(A) COMMA citer(I). { ast_iter_append(&A, I); }
/* The bounds become the 2.0 range expression lo .. hi. */
%type citer {Iter *}
citer(A) ::= ID(N) IN expr(L) DOTDOT expr(H). { A = parser_iter(st, N, parser_range(st, L, H)); }

/* A comprehension's iterators; several are an extension (doc/language.md §5.6). */
%type iters {IterList}
iters(A) ::= iter(I). {
  A = (IterList){0};
  ast_iter_append(&A, I);
}
iters(A) ::= iters(A) COMMA iter(I). { ast_iter_append(&A, I); }
/* `..` exists only here, in iterators. */
%type iter {Iter *}
iter(A) ::= ID(N) IN expr(E). { A = parser_iter(st, N, E); }
iter(A) ::= ID(N) IN expr(L) DOTDOT expr(H). { A = parser_iter(st, N, parser_range(st, L, H)); }

/* --------------------------------------------------------- statements */

%type block {Stmt *}
block(A) ::= LBRACE(L) stmts(S) RBRACE(R). { A = parser_block(st, L, S, R); }
%type stmts {StmtList}
stmts(A) ::= . { A = (StmtList){0}; }
stmts(A) ::= stmts(A) stmt(S). { ast_stmt_append(&A, S); }

/* As 2.0, except: the foreach body is any statement and print needs an
 * argument. */
%type stmt {Stmt *}
stmt(A) ::= block(A).
stmt(A) ::= IF(K) LPAREN expr(C) RPAREN stmt(T). [THEN] { A = parser_if(st, K, C, T, NULL); }
stmt(A) ::= IF(K) LPAREN expr(C) RPAREN stmt(T) ELSE stmt(E). { A = parser_if(st, K, C, T, E); }
stmt(A) ::= FOREACH(K) LPAREN type(T) iter(I) RPAREN stmt(B). {
  A = parser_foreach(st, K, T, I, B);
}
stmt(A) ::= PRINT(K) LPAREN args(X) RPAREN SEMI(S). {
  A = parser_args_stmt(st, S_PRINT, K, NULL, X, S);
}
stmt(A) ::= NEW(K) ID(N) LPAREN args_opt(X) RPAREN SEMI(S). {
  A = parser_args_stmt(st, S_NEW, K, &N, X, S);
}
stmt(A) ::= STABILIZE(K) SEMI(S). { A = parser_simple_stmt(st, S_STABILIZE, K, NULL, S); }
stmt(A) ::= DIE(K) SEMI(S). { A = parser_simple_stmt(st, S_DIE, K, NULL, S); }
stmt(A) ::= CONTINUE(K) SEMI(S). { A = parser_simple_stmt(st, S_CONTINUE, K, NULL, S); }
stmt(A) ::= RETURN(K) expr(E) SEMI(S). { A = parser_simple_stmt(st, S_RETURN, K, E, S); }
stmt(A) ::= type(T) ID(N) init_opt(E) SEMI(S). { A = parser_decl_stmt(st, T, N, E, S); }
stmt(A) ::= ID(N) EQ expr(E) SEMI(S). { A = parser_assign(st, N, OP__COUNT, E, S); }
stmt(A) ::= ID(N) PLUSEQ expr(E) SEMI(S). { A = parser_assign(st, N, OP_ADD, E, S); }
stmt(A) ::= ID(N) MINUSEQ expr(E) SEMI(S). { A = parser_assign(st, N, OP_SUB, E, S); }
stmt(A) ::= ID(N) STAREQ expr(E) SEMI(S). { A = parser_assign(st, N, OP_MUL, E, S); }
stmt(A) ::= ID(N) SLASHEQ expr(E) SEMI(S). { A = parser_assign(st, N, OP_DIV, E, S); }
stmt(A) ::= ID(N) PERCENTEQ expr(E) SEMI(S). { A = parser_assign(st, N, OP_MOD, E, S); }

/* -------------------------------------------------------------- types */

/* Dimensions are integer literals; `#k` is required on fields;
 * sequences are written T{n} and T{}. */
%type type {AstType *}
type(A) ::= IMAGE(K) LPAREN dim(D) RPAREN shape(S). { A = parser_type_image(st, K, D, S); }
type(A) ::= FIELD(K) HASH INT(C) LPAREN dim(D) RPAREN shape(S). {
  A = parser_type_field(st, K, &C, D, S);
}
type(A) ::= KERNEL(K) HASH INT(C). { A = parser_type_kernel(st, K, C); }
type(A) ::= fixed_seq(A).
type(A) ::= fixed_seq(E) LBRACE RBRACE(R). { A = parser_type_seq(st, E, NULL, R); }

%type fixed_seq {AstType *}
fixed_seq(A) ::= prim_type(A).
fixed_seq(A) ::= fixed_seq(E) LBRACE dim(N) RBRACE(R). { A = parser_type_seq(st, E, N, R); }

%type prim_type {AstType *}
prim_type(A) ::= kw_type(A).
prim_type(A) ::= ID(N). { A = parser_type_named(st, N); }

/* The types named by keywords. */
%type kw_type {AstType *}
kw_type(A) ::= TENSOR(K) shape(S). { A = parser_type_tensor(st, K, S); }
kw_type(A) ::= VEC2(K). { A = parser_type_simple(st, AT_VEC, K, 2); }
kw_type(A) ::= VEC3(K). { A = parser_type_simple(st, AT_VEC, K, 3); }
kw_type(A) ::= VEC4(K). { A = parser_type_simple(st, AT_VEC, K, 4); }
kw_type(A) ::= BOOL(K). { A = parser_type_simple(st, AT_BOOL, K, 0); }
kw_type(A) ::= KW_INT(K). { A = parser_type_simple(st, AT_INT, K, 0); }
kw_type(A) ::= KW_REAL(K). { A = parser_type_simple(st, AT_REAL, K, 0); }
kw_type(A) ::= KW_STRING(K). { A = parser_type_simple(st, AT_STRING, K, 0); }

%type dim {Expr *}
dim(A) ::= INT(T). { A = parser_leaf(st, E_INT, T); }

%type shape {PList}
shape(A) ::= LBRACKET(L) RBRACKET(R). { A = parser_plist(L, (ExprList){0}, R); }
shape(A) ::= LBRACKET(L) dims(X) RBRACKET(R). { A = parser_plist(L, X, R); }
%type dims {ExprList}
dims(A) ::= dim(E). {
  A = (ExprList){0};
  ast_expr_append(&A, E);
}
dims(A) ::= dims(A) COMMA dim(E). { ast_expr_append(&A, E); }

/* -------------------------------------------------------- expressions */

/* The levels of doc/language.md §5.1 without the range (1.0 has `..`
 * only in iterators); 1.0 has no composition either. */
%type expr {Expr *}
expr(A) ::= or_expr(A).
expr(A) ::= or_expr(T) IF expr(C) ELSE expr(E). { A = parser_cond(st, T, C, E); }

%type or_expr {Expr *}
or_expr(A) ::= and_expr(A).
or_expr(A) ::= and_expr(L) OROR or_expr(R). { A = parser_binary(st, OP_OR, L, R); }

%type and_expr {Expr *}
and_expr(A) ::= cmp_expr(A).
and_expr(A) ::= cmp_expr(L) ANDAND and_expr(R). { A = parser_binary(st, OP_AND, L, R); }

%type cmp_expr {Expr *}
cmp_expr(A) ::= add_expr(A).
cmp_expr(A) ::= cmp_expr(L) LT add_expr(R). { A = parser_binary(st, OP_LT, L, R); }
cmp_expr(A) ::= cmp_expr(L) LE add_expr(R). { A = parser_binary(st, OP_LE, L, R); }
cmp_expr(A) ::= cmp_expr(L) EQEQ add_expr(R). { A = parser_binary(st, OP_EQ, L, R); }
cmp_expr(A) ::= cmp_expr(L) NEQ add_expr(R). { A = parser_binary(st, OP_NE, L, R); }
cmp_expr(A) ::= cmp_expr(L) GE add_expr(R). { A = parser_binary(st, OP_GE, L, R); }
cmp_expr(A) ::= cmp_expr(L) GT add_expr(R). { A = parser_binary(st, OP_GT, L, R); }

%type add_expr {Expr *}
add_expr(A) ::= mul_expr(A).
add_expr(A) ::= add_expr(L) PLUS mul_expr(R). { A = parser_binary(st, OP_ADD, L, R); }
add_expr(A) ::= add_expr(L) MINUS mul_expr(R). { A = parser_binary(st, OP_SUB, L, R); }
add_expr(A) ::= add_expr(L) AT mul_expr(R). { A = parser_binary(st, OP_AT, L, R); }

%type mul_expr {Expr *}
mul_expr(A) ::= prefix_expr(A).
mul_expr(A) ::= mul_expr(L) STAR prefix_expr(R). { A = parser_binary(st, OP_MUL, L, R); }
mul_expr(A) ::= mul_expr(L) SLASH prefix_expr(R). { A = parser_binary(st, OP_DIV, L, R); }
mul_expr(A) ::= mul_expr(L) PERCENT prefix_expr(R). { A = parser_binary(st, OP_MOD, L, R); }
mul_expr(A) ::= mul_expr(L) CONVOLVE prefix_expr(R). { A = parser_binary(st, OP_CONVOLVE, L, R); }
mul_expr(A) ::= mul_expr(L) DOT_PROD prefix_expr(R). { A = parser_binary(st, OP_DOT, L, R); }
mul_expr(A) ::= mul_expr(L) CROSS prefix_expr(R). { A = parser_binary(st, OP_CROSS, L, R); }
mul_expr(A) ::= mul_expr(L) OUTER prefix_expr(R). { A = parser_binary(st, OP_OUTER, L, R); }
mul_expr(A) ::= mul_expr(L) COLON prefix_expr(R). { A = parser_binary(st, OP_DDOT, L, R); }

%type prefix_expr {Expr *}
prefix_expr(A) ::= pow_expr(A).
prefix_expr(A) ::= MINUS(K) prefix_expr(E). { A = parser_unary(st, OP_NEG, K, E); }
prefix_expr(A) ::= BANG(K) prefix_expr(E). { A = parser_unary(st, OP_NOT, K, E); }

%type pow_expr {Expr *}
pow_expr(A) ::= suffix_expr(A).
pow_expr(A) ::= suffix_expr(L) CARET pow_expr(R). { A = parser_binary(st, OP_POW, L, R); }

%type suffix_expr {Expr *}
suffix_expr(A) ::= suffixes(A).
suffix_expr(A) ::= KW_NAN(K). { A = parser_nan(st, K); }
suffix_expr(A) ::= KW_NAN(K) shape(S). { A = parser_list_expr(st, E_NAN, K, S); }

/* 1.0 adds the suffixes s{i} (subscript) and f{e | x in s} (application
 * to a comprehension). */
%type suffixes {Expr *}
suffixes(A) ::= diff_expr(A).
suffixes(A) ::= suffixes(F) LPAREN(L) args_opt(X) RPAREN(R). {
  A = parser_suffix(st, E_APPLY, F, parser_plist(L, X, R));
}
suffixes(A) ::= suffixes(F) LBRACKET(L) indices(X) RBRACKET(R). {
  A = parser_suffix(st, E_SUBSCRIPT, F, parser_plist(L, X, R));
}
suffixes(A) ::= suffixes(F) LBRACE(L) expr(E) RBRACE(R). {
  A = parser_suffix(st, E_SUBSCRIPT, F, parser_plist(L, parser_list1(E), R));
}
suffixes(A) ::= suffixes(F) LBRACE(L) expr(E) BAR iters(I) RBRACE(R). {
  A = parser_apply_comprehension(st, F, parser_comprehension(st, L, E, I, R));
}
suffixes(A) ::= suffixes(F) DOT ID(N). { A = parser_select(st, F, N); }

%type indices {ExprList}
indices(A) ::= index(E). {
  A = (ExprList){0};
  ast_expr_append(&A, E);
}
indices(A) ::= indices(A) COMMA index(E). { ast_expr_append(&A, E); }
%type index {Expr *}
index(A) ::= expr(A).
index(A) ::= COLON(C). { A = ast_expr(st->arena, E_SLICE_ALL, C.span); }

%type diff_expr {Expr *}
diff_expr(A) ::= atom(A).
diff_expr(A) ::= NABLA(K) diff_expr(E). { A = parser_unary(st, OP_GRAD, K, E); }
diff_expr(A) ::= NABLA_OUTER(K) diff_expr(E). { A = parser_unary(st, OP_GRAD_OUTER, K, E); }
diff_expr(A) ::= NABLA_DOT(K) diff_expr(E). { A = parser_unary(st, OP_DIV_FIELD, K, E); }
diff_expr(A) ::= NABLA_CROSS(K) diff_expr(E). { A = parser_unary(st, OP_CURL, K, E); }

%type atom {Expr *}
atom(A) ::= ID(N). { A = parser_var(st, N); }
atom(A) ::= ID(N) HASH INT(K). { A = parser_kernel_cont(st, N, K); }
atom(A) ::= INT(T). { A = parser_leaf(st, E_INT, T); }
atom(A) ::= REAL(T). { A = parser_leaf(st, E_REAL, T); }
atom(A) ::= STRING(T). { A = parser_leaf(st, E_STRING, T); }
atom(A) ::= TRUE(T). { A = parser_bool(st, T, true); }
atom(A) ::= FALSE(T). { A = parser_bool(st, T, false); }
atom(A) ::= LPAREN(L) expr(E) RPAREN(R). { A = parser_wrap(st, E_PAREN, L, E, R); }
atom(A) ::= LBRACE(L) RBRACE(R). { A = parser_list_expr(st, E_SEQ, L, parser_plist(L, (ExprList){0}, R)); }
atom(A) ::= LBRACE(L) args(X) RBRACE(R). { A = parser_list_expr(st, E_SEQ, L, parser_plist(L, X, R)); }
/* several iterators: an extension (doc/language.md §5.6) */
atom(A) ::= LBRACE(L) expr(E) BAR iters(I) RBRACE(R). { A = parser_comprehension(st, L, E, I, R); }
atom(A) ::= LBRACKET(L) args(X) RBRACKET(R). {
  A = parser_list_expr(st, E_TENSOR, L, parser_plist(L, X, R));
}
atom(A) ::= BAR(L) expr(E) BAR(R). { A = parser_wrap(st, E_NORM, L, E, R); }
/* As in the original 1.0 grammar, the special forms are atoms, so that
 * suffixes apply to them: zeros[2,3][1,2], identity[3][0,:]. */
atom(A) ::= KW_REAL(K) LPAREN expr(E) RPAREN(R). { A = parser_wrap(st, E_REAL_CONV, K, E, R); }
/* int(x): an extension (doc/language.md §4.2) */
atom(A) ::= KW_INT(K) LPAREN expr(E) RPAREN(R). { A = parser_wrap(st, E_INT_CONV, K, E, R); }
/* load("f") and image("f") take a string literal. */
atom(A) ::= LOAD(K) LPAREN STRING(S) RPAREN(R). {
  A = parser_wrap(st, E_LOAD_SEQ, K, parser_leaf(st, E_STRING, S), R);
}
atom(A) ::= IMAGE(K) LPAREN STRING(S) RPAREN(R). {
  A = parser_wrap(st, E_LOAD_IMAGE, K, parser_leaf(st, E_STRING, S), R);
}
atom(A) ::= IDENTITY(K) LBRACKET dim(E) RBRACKET(R). {
  A = parser_wrap(st, E_IDENTITY, K, E, R);
}
atom(A) ::= ZEROS(K) shape(S). { A = parser_list_expr(st, E_ZEROS, K, S); }

%type args_opt {ExprList}
args_opt(A) ::= . { A = (ExprList){0}; }
args_opt(A) ::= args(A).
%type args {ExprList}
args(A) ::= expr(E). {
  A = (ExprList){0};
  ast_expr_append(&A, E);
}
args(A) ::= args(A) COMMA expr(E). { ast_expr_append(&A, E); }

%code {
/* Lemon codes equal TokenKind values (parser_impl.h); TOK_EOF is lemon's
 * end-of-input code 0. */
#define TKV1_EOF 0
#define TOK(name, spelling) _Static_assert(TKV1_##name == TOK_##name, "token order: " #name);
#include "frontend/tokens.def"
#undef TOK

/* Accessors that let parser.c look at this parser's tables and stack. */
static void *v1_alloc(void *(*m)(size_t)) { return ParseV1Alloc(m); }
static int v1_depth(void *p) {
  yyParser *y = p;
  return (int)(y->yytos - y->yystack);
}
static int v1_state_at(void *p, int i) {
  yyParser *y = p;
  return y->yytos[-i].stateno;
}
static int v1_shift_action(int state, int la) {
  return yy_find_shift_action((YYCODETYPE)la, (YYACTIONTYPE)state);
}
static int v1_goto_action(int state, int lhs) {
  return yy_find_reduce_action((YYACTIONTYPE)state, (YYCODETYPE)lhs);
}
static void *v1_stack_base(void *p) { return ((yyParser *)p)->yystack; }
static void v1_set_depth(void *p, int depth) {
  yyParser *y = p;
  y->yytos = y->yystack + depth;
}
static int v1_rule_lhs(int r) { return yyRuleInfoLhs[r]; }
static int v1_rule_len(int r) { return -yyRuleInfoNRhs[r]; }

const ParserTables parser_v1_tables = {
    v1_alloc, ParseV1Free, ParseV1, v1_depth, v1_state_at, v1_shift_action,
    v1_goto_action, v1_rule_lhs, v1_rule_len, v1_stack_base, v1_set_depth,
    sizeof(yyStackEntry),
    YY_MAX_SHIFT, YY_MIN_SHIFTREDUCE, YY_MAX_SHIFTREDUCE,
    YY_ERROR_ACTION, YY_ACCEPT_ACTION, YY_MIN_REDUCE,
};
}
