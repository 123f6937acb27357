/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lab-expr.c - the expressions of lab checks, waits and predictions.
 *
 *   cond   := expr CMP expr              CMP: == != < <= > >=
 *           | expr within PCT% of expr
 *   expr   := term (('+' | '-') term)*
 *   term   := factor (('*' | '/') factor)*
 *   factor := NUMBER | SPEC | '(' expr ')'
 *           | delta '(' SPEC [',' MARK] ')' | result '(' NAME.KEY ')'
 *           | median '(' NAME.KEY ')'
 *
 * SPEC is a value spec of the value layer (values.h: vmstat.KEY,
 * lru_gen[memcg=1].max_seq, memory.stat[a/b].KEY ...); it may hold '/'
 * and '-', so '-' and '/' are operators only with blanks around them.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "util.h"
#include "values.h"

enum tk { T_END, T_NUM, T_WORD, T_LP, T_RP, T_COMMA, T_OP, T_CMP, T_BAD };

struct lexer {
	const char	*s, *p;
	enum tk		 t;
	char		 word[512];
	double		 num;
	char		 op;		/* T_OP */
	enum lcmp	 cmp;		/* T_CMP */
	bool		 prev_operand;	/* for a '-' sign */
	char		*err;
};

/* Record the first error. */
static void
lerr(struct lexer *lx, const char *fmt, ...)
{
	va_list	ap;

	if (lx->err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(lx->err, LAB_ERR_LEN, fmt, ap);
	va_end(ap);
}

/* Whether c ends a word outside brackets. */
static bool
word_end(char c)
{
	return c == '\0' || isspace((unsigned char)c) || strchr("(),<>=!+*", c) != NULL;
}

/* Read the next token. */
static void
next(struct lexer *lx)
{
	const char	*p = lx->p, *start;
	char		*end;
	size_t		 n;
	int		 depth = 0;

	while (isspace((unsigned char)*p))
		p++;
	lx->p = p;
	if (*p == '\0') {
		lx->t = T_END;
		return;
	}
	switch (*p) {
	case '(': lx->t = T_LP; lx->p = p + 1; lx->prev_operand = false; return;
	case ')': lx->t = T_RP; lx->p = p + 1; lx->prev_operand = true; return;
	case ',': lx->t = T_COMMA; lx->p = p + 1; lx->prev_operand = false; return;
	case '+': case '*':
		lx->t = T_OP; lx->op = *p; lx->p = p + 1; lx->prev_operand = false;
		return;
	case '=': case '!': case '<': case '>':
		lx->t = T_CMP;
		if (p[1] == '=') {
			lx->cmp = *p == '=' ? LC_EQ : *p == '!' ? LC_NE :
			    *p == '<' ? LC_LE : LC_GE;
			lx->p = p + 2;
		} else if (*p == '<' || *p == '>') {
			lx->cmp = *p == '<' ? LC_LT : LC_GT;
			lx->p = p + 1;
		} else {
			lx->t = T_BAD;
			lerr(lx, "'%c' alone is not an operator (want == != < <= > >=)", *p);
			return;
		}
		lx->prev_operand = false;
		return;
	}
	/* A lone '-' or '/' between blanks is an operator. */
	if ((*p == '-' || *p == '/') && (p[1] == '\0' || isspace((unsigned char)p[1]))) {
		if (*p == '-' && !lx->prev_operand) {
			lerr(lx, "'-' with nothing before it (write -5, not - 5)");
			lx->t = T_BAD;
			return;
		}
		lx->t = T_OP;
		lx->op = *p;
		lx->p = p + 1;
		lx->prev_operand = false;
		return;
	}
	start = p;
	while (*p != '\0' && (depth > 0 || !word_end(*p) ||
	    /* a key with parentheses: meminfo.Active(anon) */
	    (*p == '(' && memchr(start, '.', (size_t)(p - start)) != NULL &&
	    strchr(p, ')') != NULL))) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0) {
			p = strchr(p, ')') + 1;
			continue;
		}
		p++;
	}
	if (depth > 0) {
		lerr(lx, "'[' without ']' in '%s'", start);
		lx->t = T_BAD;
		return;
	}
	n = (size_t)(p - start);
	if (n >= sizeof lx->word) {
		lerr(lx, "a %zu-character word is too long", n);
		lx->t = T_BAD;
		return;
	}
	memcpy(lx->word, start, n);
	lx->word[n] = '\0';
	lx->p = p;
	lx->prev_operand = true;
	lx->num = strtod(lx->word, &end);
	if (end != lx->word && *end == '\0' && isfinite(lx->num) &&
	    (isdigit((unsigned char)lx->word[0]) || lx->word[0] == '.' ||
	    lx->word[0] == '-'))
		lx->t = T_NUM;
	else
		lx->t = T_WORD;
}

static struct lexpr *parse_expr(struct lexer *);

/* A new node. */
static struct lexpr *
node(enum lx_kind k)
{
	struct lexpr	*e = xcalloc(1, sizeof *e);

	e->kind = k;
	return e;
}

/* Check a spec with the value layer; false with the error recorded. */
static bool
spec_ok(struct lexer *lx, const char *spec)
{
	char	e[LAB_ERR_LEN];

	if (values_check(spec, e, sizeof e) < 0) {
		lerr(lx, "%s", e);
		return false;
	}
	return true;
}

/* Whether w is NAME.KEY of a result line: [a-z0-9_-]+ '.' [a-z0-9_]+. */
static bool
result_key_ok(const char *w)
{
	const char	*dot = strchr(w, '.'), *p;

	/* Both parts fit LAB_RESULT_NAME (lab-run.c's copy of the name). */
	if (dot == NULL || dot == w || dot[1] == '\0' ||
	    dot - w >= LAB_RESULT_NAME || strlen(dot + 1) >= LAB_RESULT_NAME)
		return false;
	for (p = w; *p != '\0'; p++) {
		if (p == dot)
			continue;
		/* keys carry units: p99_us, anon_kB, MB_per_s */
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) &&
		    *p != '_' && !(*p == '-' && p < dot) &&
		    !(isupper((unsigned char)*p) && p > dot))
			return false;
	}
	return strchr(dot + 1, '.') == NULL;
}

/* factor := NUMBER | SPEC | ( expr ) | delta(SPEC[, MARK]) | result(N.K)
 * | median(N.K) */
static struct lexpr *
parse_factor(struct lexer *lx)
{
	struct lexpr	*e;
	char		 fn[16];

	switch (lx->t) {
	case T_NUM:
		e = node(LX_NUM);
		e->num = lx->num;
		next(lx);
		return e;
	case T_LP:
		next(lx);
		if ((e = parse_expr(lx)) == NULL)
			return NULL;
		if (lx->t != T_RP) {
			lerr(lx, "')' expected");
			lexpr_free(e);
			return NULL;
		}
		next(lx);
		return e;
	case T_WORD:
		break;
	case T_END:
		lerr(lx, "a value expected at the end");
		return NULL;
	default:
		lerr(lx, "a value expected at '%.20s'", lx->p);
		return NULL;
	}
	if (strcmp(lx->word, "delta") != 0 && strcmp(lx->word, "result") != 0 &&
	    strcmp(lx->word, "median") != 0) {
		if (!spec_ok(lx, lx->word))
			return NULL;
		e = node(LX_SPEC);
		e->spec = xstrdup(lx->word);
		next(lx);
		return e;
	}
	snprintf(fn, sizeof fn, "%.15s", lx->word);
	next(lx);
	if (lx->t != T_LP) {
		lerr(lx, "%s needs '(': %s(%s)", fn, fn,
		    fn[0] == 'd' ? "SPEC[, MARK]" : "WORKLOAD.KEY");
		return NULL;
	}
	next(lx);
	if (lx->t != T_WORD) {
		lerr(lx, "%s( wants a %s", fn, fn[0] == 'd' ? "value spec" :
		    "WORKLOAD.KEY");
		return NULL;
	}
	if (fn[0] == 'r' || fn[0] == 'm') {
		if (!result_key_ok(lx->word)) {
			lerr(lx, "%s(%.80s): want WORKLOAD.KEY (each under %d "
			    "characters), like %s(kvbench.ops_per_s)", fn, lx->word,
			    LAB_RESULT_NAME, fn);
			return NULL;
		}
		e = node(fn[0] == 'r' ? LX_RESULT : LX_MEDIAN);
		e->spec = xstrdup(lx->word);
		next(lx);
	} else {
		if (!spec_ok(lx, lx->word))
			return NULL;
		e = node(LX_DELTA);
		e->spec = xstrdup(lx->word);
		next(lx);
		if (lx->t == T_COMMA) {
			next(lx);
			if (lx->t != T_WORD) {
				lerr(lx, "delta(SPEC, MARK): a mark name expected");
				lexpr_free(e);
				return NULL;
			}
			e->mark = xstrdup(lx->word);
			next(lx);
		}
	}
	if (lx->t != T_RP) {
		lerr(lx, "')' expected after %s(%s", fn, e->spec);
		lexpr_free(e);
		return NULL;
	}
	next(lx);
	return e;
}

/* A binary node, or NULL (both freed) when b is NULL. */
static struct lexpr *
binary(char op, struct lexpr *a, struct lexpr *b)
{
	struct lexpr	*e;

	if (b == NULL) {
		lexpr_free(a);
		return NULL;
	}
	e = node(LX_BIN);
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

/* term := factor (('*' | '/') factor)* */
static struct lexpr *
parse_term(struct lexer *lx)
{
	struct lexpr	*e = parse_factor(lx);
	char		 op;

	while (e != NULL && lx->t == T_OP && (lx->op == '*' || lx->op == '/')) {
		op = lx->op;
		next(lx);
		e = binary(op, e, parse_factor(lx));
	}
	return e;
}

/* expr := term (('+' | '-') term)* */
static struct lexpr *
parse_expr(struct lexer *lx)
{
	struct lexpr	*e = parse_term(lx);
	char		 op;

	while (e != NULL && lx->t == T_OP && (lx->op == '+' || lx->op == '-')) {
		op = lx->op;
		next(lx);
		e = binary(op, e, parse_term(lx));
	}
	return e;
}

/* Set up a lexer on text. */
static void
lex_init(struct lexer *lx, const char *text, char *err)
{
	memset(lx, 0, sizeof *lx);
	lx->s = lx->p = text;
	lx->err = err;
	err[0] = '\0';
	next(lx);
}

/* Parse an expression that must use all of text. */
struct lexpr *
lexpr_parse(const char *text, char *err)
{
	struct lexer	 lx;
	struct lexpr	*e;

	lex_init(&lx, text, err);
	if ((e = parse_expr(&lx)) != NULL && lx.t != T_END) {
		lerr(&lx, lx.t == T_CMP ? "a comparison is not allowed here" :
		    "unexpected '%.20s'", lx.t == T_CMP ? "" : lx.p);
		lexpr_free(e);
		e = NULL;
	}
	if (e == NULL && err[0] == '\0')
		snprintf(err, LAB_ERR_LEN, "not an expression");
	return e;
}

/* Parse "expr CMP expr". */
struct lcond *
lcond_parse(const char *text, char *err)
{
	struct lexer	 lx;
	struct lcond	*c = xcalloc(1, sizeof *c);

	lex_init(&lx, text, err);
	if ((c->left = parse_expr(&lx)) == NULL)
		goto bad;
	if (lx.t == T_WORD && strcmp(lx.word, "within") == 0) {
		lx.t = T_CMP;
		lx.cmp = LC_WITHIN;
	}
	if (lx.t != T_CMP) {
		lerr(&lx, "a comparison (== != < <= > >=, within) expected%s%.20s",
		    lx.t == T_END ? " at the end" : " at ", lx.t == T_END ? "" : lx.p);
		goto bad;
	}
	c->cmp = lx.cmp;
	next(&lx);
	if (c->cmp == LC_WITHIN) {
		/* within PCT% of */
		char	*end;

		c->pct = lx.t == T_WORD ? strtod(lx.word, &end) : -1;
		if (lx.t != T_WORD || end == lx.word || strcmp(end, "%") != 0 ||
		    !(c->pct >= 0 && c->pct <= 1000)) {
			lerr(&lx, "'within' wants a percentage (0-1000%%) and 'of': "
			    "A within 10%% of B");
			goto bad;
		}
		next(&lx);
		if (lx.t != T_WORD || strcmp(lx.word, "of") != 0) {
			lerr(&lx, "'within %g%%' wants 'of' after it", c->pct);
			goto bad;
		}
		next(&lx);
	}
	if ((c->right = parse_expr(&lx)) == NULL)
		goto bad;
	if (lx.t != T_END) {
		lerr(&lx, "unexpected '%.20s' after the comparison", lx.p);
		goto bad;
	}
	c->text = xstrdup(text);
	return c;
bad:
	if (err[0] == '\0')
		snprintf(err, LAB_ERR_LEN, "not a comparison");
	lcond_free(c);
	return NULL;
}

/* Free an expression tree. */
void
lexpr_free(struct lexpr *e)
{
	if (e == NULL)
		return;
	lexpr_free(e->a);
	lexpr_free(e->b);
	free(e->spec);
	free(e->mark);
	free(e);
}

/* Free a comparison. */
void
lcond_free(struct lcond *c)
{
	if (c == NULL)
		return;
	lexpr_free(c->left);
	lexpr_free(c->right);
	free(c->text);
	free(c);
}

/* Visit the specs of e. */
void
lexpr_specs(const struct lexpr *e,
    void (*fn)(const char *spec, const char *mark, void *), void *arg)
{
	if (e == NULL)
		return;
	if (e->kind == LX_SPEC)
		fn(e->spec, NULL, arg);
	else if (e->kind == LX_DELTA)
		fn(e->spec, e->mark ? e->mark : "", arg);
	lexpr_specs(e->a, fn, arg);
	lexpr_specs(e->b, fn, arg);
}

/* Walk the {{EXPR}}s of text. */
int
lexpr_interp(const char *text, void (*fn)(const char *, const struct lexpr *,
    const char *, void *), void *arg)
{
	const char	*q = text, *e;
	char		 err[LAB_ERR_LEN], *x;
	struct lexpr	*ex;

	while ((q = strstr(q, "{{")) != NULL) {
		if ((e = strstr(q + 2, "}}")) == NULL)
			return -1;
		x = xasprintf("%.*s", (int)(e - q - 2), q + 2);
		err[0] = '\0';
		ex = lexpr_parse(x, err);
		fn(x, ex, err, arg);
		lexpr_free(ex);
		free(x);
		q = e + 2;
	}
	return 0;
}

/* The operator as written. */
const char *
lcmp_str(enum lcmp c)
{
	static const char *const s[] = { "==", "!=", "<", "<=", ">", ">=", "within" };

	return s[c];
}

/* Evaluate e. */
int
lexpr_eval(const struct lexpr *e, const struct lenv *env, double *v, char *err)
{
	double	a, b;

	switch (e->kind) {
	case LX_NUM:
		*v = e->num;
		return 0;
	case LX_SPEC:
		return env->now(env->arg, e->spec, v, err);
	case LX_DELTA:
		if (env->now(env->arg, e->spec, &a, err) < 0 ||
		    env->at(env->arg, e->spec, e->mark, &b, err) < 0)
			return -1;
		*v = a - b;
		return 0;
	case LX_RESULT:
		return env->result(env->arg, e->spec, v, err);
	case LX_MEDIAN: {
		double	*w;
		int	 n, i, j;

		if (env->results == NULL) {
			snprintf(err, LAB_ERR_LEN, "median(%s): no results here", e->spec);
			return -1;
		}
		w = xcalloc(LAB_MEDIAN_MAX, sizeof *w);
		if ((n = env->results(env->arg, e->spec, w, LAB_MEDIAN_MAX, err)) <= 0) {
			if (n == 0)
				snprintf(err, LAB_ERR_LEN, "median(%s): no such result "
				    "line yet", e->spec);
			free(w);
			return -1;
		}
		for (i = 1; i < n; i++)		/* insertion sort: n is small */
			for (j = i; j > 0 && w[j - 1] > w[j]; j--) {
				a = w[j];
				w[j] = w[j - 1];
				w[j - 1] = a;
			}
		*v = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
		free(w);
		return 0;
	}
	case LX_BIN:
		if (lexpr_eval(e->a, env, &a, err) < 0 ||
		    lexpr_eval(e->b, env, &b, err) < 0)
			return -1;
		switch (e->op) {
		case '+': *v = a + b; break;
		case '-': *v = a - b; break;
		case '*': *v = a * b; break;
		default:
			if (b == 0) {
				snprintf(err, LAB_ERR_LEN, "division by zero");
				return -1;
			}
			*v = a / b;
		}
		return 0;
	}
	snprintf(err, LAB_ERR_LEN, "bad expression");
	return -1;
}

/* Evaluate a comparison. */
int
lcond_eval(const struct lcond *c, const struct lenv *env, double *l, double *r,
    char *err)
{
	double	a, b;

	if (lexpr_eval(c->left, env, &a, err) < 0)
		return -1;
	*l = a;
	if (lexpr_eval(c->right, env, &b, err) < 0)
		return -1;
	*r = b;
	switch (c->cmp) {
	case LC_EQ: return a == b;
	case LC_NE: return a != b;
	case LC_LT: return a < b;
	case LC_LE: return a <= b;
	case LC_GT: return a > b;
	case LC_GE: return a >= b;
	case LC_WITHIN: return fabs(a - b) <= c->pct / 100 * fabs(b);
	}
	return -1;
}

/* Whether a and b are the same tree. */
bool
lexpr_same(const struct lexpr *a, const struct lexpr *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case LX_NUM:
		return a->num == b->num;
	case LX_BIN:
		return a->op == b->op && lexpr_same(a->a, b->a) &&
		    lexpr_same(a->b, b->b);
	default:
		return strcmp(a->spec, b->spec) == 0 &&
		    (a->mark == NULL ? b->mark == NULL :
		    b->mark != NULL && strcmp(a->mark, b->mark) == 0);
	}
}

/* The way the value layer prints numbers (umkit get, umkit-value). */
void
lab_fmt_num(char *out, size_t n, double v)
{
	values_format(out, n, v);
}
