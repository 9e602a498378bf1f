%name ParseV1
%token_prefix TKV1_
program ::= .
