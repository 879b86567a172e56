/*
 * Constraint expressions of a search space: a recursive-descent parser
 * into a small tree, and its evaluation over one configuration.
 *
 *   or      := and ('||' and)*
 *   and     := not ('&&' not)*
 *   not     := '!' not | compare
 *   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/' | '%') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | NAME | '(' or ')'
 *
 * Values are doubles; comparisons and logic give 1 or 0, and a non-zero
 * value is true.  '/' divides exactly (7/2 is 3.5), '%' is fmod.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/free.h"

#define MAX_DEPTH 64   /* nesting, so hostile input cannot exhaust the stack */
#define MAX_TEXT  4096 /* characters; bounds the tree's depth in evaluation too */
#define SHOWN     48   /* characters of the expression quoted in a message */

typedef enum node_kind {
    N_NUM,
    N_VAR,
    N_NEG,
    N_NOT,
    N_ADD,
    N_SUB,
    N_MUL,
    N_DIV,
    N_MOD,
    N_LT,
    N_LE,
    N_GT,
    N_GE,
    N_EQ,
    N_NE,
    N_AND,
    N_OR
} node_kind;

typedef struct node {
    node_kind kind;
    double num;   /* N_NUM */
    size_t var;   /* N_VAR */
    int a, b;     /* operands: indices into the node array, -1 for none */
    size_t where; /* position in the text, for messages */
} node;

struct rpl_expr {
    node *nodes;
    size_t count, cap;
    int root;
    char *text;
};

typedef struct parser {
    rpl_expr *e;
    const char *s;
    size_t pos;
    const char *const *names;
    size_t nnames;
    int depth;
} parser;

static void skip_space(parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
           p->s[p->pos] == '\r')
        p->pos++;
}

/* What stands at the current position, for "found ..." in messages. */
static void describe_here(char *buf, size_t size, const parser *p)
{
    const char *c = p->s + p->pos;
    size_t n = 0;

    if (!*c) {
        snprintf(buf, size, "the end");
        return;
    }
    while (c[n] && n < 12 && !(n > 0 && (c[n] == ' ' || c[n] == '\t')))
        n++;
    snprintf(buf, size, "'%.*s'", (int)n, c);
}

/*
 * The expression as messages quote it: cut after SHOWN characters, so that
 * a long one leaves room for the position and the reason.
 */
static const char *shown(char *buf, size_t size, const char *text)
{
    if (strlen(text) <= SHOWN)
        return text;
    snprintf(buf, size, "%.*s…", SHOWN, text);
    return buf;
}

void rpl_expr_describe(char *buf, size_t size, const rpl_expr *e)
{
    char cut[SHOWN + 8];

    snprintf(buf, size, "%s", shown(cut, sizeof(cut), e->text));
}

static int syntax_error(parser *p, const char *expected)
{
    char found[32], cut[SHOWN + 8];

    describe_here(found, sizeof(found), p);
    return rpl_error_set(RPL_EINPUT, "expression '%s': at position %zu: expected %s, found %s",
                         shown(cut, sizeof(cut), p->e->text), p->pos + 1, expected, found);
}

static int add_node(parser *p, node_kind kind, int a, int b, size_t where)
{
    rpl_expr *e = p->e;
    int rc = RPL_ARRAY_GROW(e->nodes, e->cap, e->count + 1);

    if (rc != 0)
        return rc;
    e->nodes[e->count] = (node){kind, 0, 0, a, b, where};
    return (int)e->count++;
}

/* Does the text at the current position start with `op`?  Consumes it if so. */
static bool accept(parser *p, const char *op)
{
    size_t n = strlen(op);

    skip_space(p);
    if (strncmp(p->s + p->pos, op, n) != 0)
        return false;
    /* '<' is not the start of '<=', '!' not of '!=' and so on. */
    if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && p->s[p->pos + 1] == '=')
        return false;
    p->pos += n;
    return true;
}

static int parse_or(parser *p);

static int parse_number(parser *p)
{
    const char *start = p->s + p->pos;
    char *end;
    double v;
    int id;

    errno = 0;
    v = strtod(start, &end);
    /* strtod also reads "inf", "nan" and hexadecimal: only plain decimals are numbers here. */
    if (end == start || errno == ERANGE || !isfinite(v) ||
        (start[0] == '0' && (start[1] == 'x' || start[1] == 'X')))
        return syntax_error(p, "a number");
    id = add_node(p, N_NUM, -1, -1, p->pos);
    if (id >= 0)
        p->e->nodes[id].num = v;
    p->pos += (size_t)(end - start);
    return id;
}

static int parse_name(parser *p)
{
    size_t start = p->pos, len;
    char cut[SHOWN + 8];
    int id;

    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
        p->pos++;
    len = p->pos - start;
    for (size_t i = 0; i < p->nnames; i++) {
        if (strlen(p->names[i]) == len && strncmp(p->names[i], p->s + start, len) == 0) {
            id = add_node(p, N_VAR, -1, -1, start);
            if (id >= 0)
                p->e->nodes[id].var = i;
            return id;
        }
    }
    return rpl_error_set(RPL_EINPUT, "expression '%s': at position %zu: unknown parameter '%.*s%s'",
                         shown(cut, sizeof(cut), p->e->text), start + 1,
                         (int)(len > SHOWN ? SHOWN : len), p->s + start, len > SHOWN ? "…" : "");
}

static int parse_primary(parser *p)
{
    char c;
    int id;

    skip_space(p);
    c = p->s[p->pos];
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1])))
        return parse_number(p);
    if (isalpha((unsigned char)c) || c == '_')
        return parse_name(p);
    if (c == '(') {
        if (++p->depth > MAX_DEPTH)
            return syntax_error(p, "fewer nested parentheses");
        p->pos++;
        id = parse_or(p);
        if (id < 0)
            return id;
        if (!accept(p, ")"))
            return syntax_error(p, "')'");
        p->depth--;
        return id;
    }
    return syntax_error(p, "a number, a parameter or '('");
}

/*
 * A prefix operator `op` (node `kind`) applied to what `self` parses, else
 * what `next` parses; `too_deep` is the error past MAX_DEPTH nested ones.
 */
static int parse_prefix(parser *p, const char *op, node_kind kind, const char *too_deep,
                        int (*self)(parser *), int (*next)(parser *))
{
    size_t where;
    int a;

    skip_space(p);
    where = p->pos;
    if (accept(p, op)) {
        if (++p->depth > MAX_DEPTH)
            return syntax_error(p, too_deep);
        a = self(p);
        p->depth--;
        return a < 0 ? a : add_node(p, kind, a, -1, where);
    }
    return next(p);
}

static int parse_unary(parser *p)
{
    return parse_prefix(p, "-", N_NEG, "fewer nested signs", parse_unary, parse_primary);
}

/* A binary operator of the grammar. */
typedef struct binary_op {
    const char *text;
    node_kind kind;
} binary_op;

/* A left-associative chain of operands joined by any of the n operators `ops`. */
static int parse_chain(parser *p, int (*operand)(parser *), const binary_op *ops, size_t n)
{
    int a = operand(p);

    while (a >= 0) {
        size_t where, i;
        int b;

        skip_space(p);
        where = p->pos;
        for (i = 0; i < n && !accept(p, ops[i].text); i++)
            ;
        if (i == n)
            break;
        b = operand(p);
        if (b < 0)
            return b;
        a = add_node(p, ops[i].kind, a, b, where);
    }
    return a;
}

static int parse_product(parser *p)
{
    static const binary_op ops[] = {{"*", N_MUL}, {"/", N_DIV}, {"%", N_MOD}};

    return parse_chain(p, parse_unary, ops, sizeof(ops) / sizeof(ops[0]));
}

static int parse_sum(parser *p)
{
    static const binary_op ops[] = {{"+", N_ADD}, {"-", N_SUB}};

    return parse_chain(p, parse_product, ops, sizeof(ops) / sizeof(ops[0]));
}

static int parse_compare(parser *p)
{
    static const binary_op ops[] = {{"<=", N_LE}, {">=", N_GE}, {"==", N_EQ},
                                    {"!=", N_NE}, {"<", N_LT},  {">", N_GT}};
    int a = parse_sum(p), b;
    size_t where;

    if (a < 0)
        return a;
    skip_space(p);
    where = p->pos;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (accept(p, ops[i].text)) {
            b = parse_sum(p);
            return b < 0 ? b : add_node(p, ops[i].kind, a, b, where);
        }
    }
    return a;
}

static int parse_not(parser *p)
{
    return parse_prefix(p, "!", N_NOT, "fewer nested '!'", parse_not, parse_compare);
}

static int parse_and(parser *p)
{
    static const binary_op ops[] = {{"&&", N_AND}};

    return parse_chain(p, parse_not, ops, 1);
}

static int parse_or(parser *p)
{
    static const binary_op ops[] = {{"||", N_OR}};

    return parse_chain(p, parse_and, ops, 1);
}

int rpl_expr_parse(rpl_expr **out, const char *text, const char *const *names, size_t nnames)
{
    rpl_expr *e = calloc(1, sizeof(*e));
    parser p = {0};
    int root;

    *out = NULL;
    if (strlen(text) > MAX_TEXT) {
        free(e);
        return rpl_error_set(RPL_EINPUT, "an expression of %zu characters is longer than %d",
                             strlen(text), MAX_TEXT);
    }
    if (!e || !(e->text = strdup(text))) {
        free(e);
        return rpl_error_oom();
    }
    p = (parser){e, text, 0, names, nnames, 0};
    root = parse_or(&p);
    if (root >= 0) {
        skip_space(&p);
        if (p.s[p.pos] != '\0')
            root = syntax_error(&p, "an operator or the end");
    }
    if (root < 0) {
        rpl_expr_free(e);
        return root;
    }
    e->root = root;
    *out = e;
    return 0;
}

void rpl_expr_free(rpl_expr *e)
{
    if (!e)
        return;
    RPL_FREE_EACH(e->nodes, e->text, e);
}

const char *rpl_expr_text(const rpl_expr *e)
{
    return e->text;
}

size_t rpl_expr_size(const rpl_expr *e)
{
    return e->count;
}

/* An operator applied to its operands' values (b is 0 for a unary one; no division by zero). */
static double apply(node_kind kind, double a, double b)
{
    switch (kind) {
    case N_NEG:
        return -a;
    case N_NOT:
        return a == 0;
    case N_ADD:
        return a + b;
    case N_SUB:
        return a - b;
    case N_MUL:
        return a * b;
    case N_DIV:
        return a / b;
    case N_MOD:
        return fmod(a, b);
    case N_LT:
        return a < b;
    case N_LE:
        return a <= b;
    case N_GT:
        return a > b;
    case N_GE:
        return a >= b;
    case N_EQ:
        return a == b;
    default: /* N_NE: eval lets no other kind through */
        return a != b;
    }
}

static int eval(const rpl_expr *e, int id, const double *v, double *out)
{
    const node *n = &e->nodes[id];
    double a = 0, b = 0;
    int rc;

    switch (n->kind) {
    case N_NUM:
        *out = n->num;
        return 0;
    case N_VAR:
        *out = v[n->var];
        return 0;
    case N_AND:
    case N_OR:
        /* Short-circuit, so "TM != 0 && BM % TM == 0" never divides by zero. */
        if ((rc = eval(e, n->a, v, &a)) != 0)
            return rc;
        if ((n->kind == N_AND) == (a == 0)) {
            *out = n->kind == N_OR;
            return 0;
        }
        if ((rc = eval(e, n->b, v, &b)) != 0)
            return rc;
        *out = b != 0;
        return 0;
    default:
        break;
    }
    if (n->kind < N_NEG || n->kind > N_NE) /* the operators apply() knows, in enum order */
        return rpl_error_set(RPL_ERROR, "expression: bad node %d", id);
    if ((rc = eval(e, n->a, v, &a)) != 0)
        return rc;
    if (n->b >= 0 && (rc = eval(e, n->b, v, &b)) != 0)
        return rc;
    if ((n->kind == N_DIV || n->kind == N_MOD) && b == 0) {
        char cut[SHOWN + 8];

        return rpl_error_set(RPL_EINPUT, "expression '%s': at position %zu: %s by zero",
                             shown(cut, sizeof(cut), e->text), n->where + 1,
                             n->kind == N_DIV ? "division" : "remainder");
    }
    *out = apply(n->kind, a, b);
    return 0;
}

int rpl_expr_eval(const rpl_expr *e, const double *values, double *out)
{
    return eval(e, e->root, values, out);
}
