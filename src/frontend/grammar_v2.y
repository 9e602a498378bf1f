%name ParseV2
%token_prefix TKV2_
program ::= .
