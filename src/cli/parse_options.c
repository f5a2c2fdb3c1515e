/* The declarative option parser (parse_options.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "parse_options.h"
#include "../util/util.h"

struct po_ctx {
	const char *cmd;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct po_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "%s: ", c->cmd);
	if (n < 0 || (size_t)n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* "--long" when the option has one, else "-s": the name errors use. */
static const char *opt_name(const struct po_option *o, char *buf, size_t n)
{
	if (o->long_name)
		snprintf(buf, n, "--%s", o->long_name);
	else
		snprintf(buf, n, "-%c", o->short_name);
	return buf;
}

static int takes_value(const struct po_option *o)
{
	return o->type != PO_FLAG && !(o->type == PO_CALLBACK && (o->flags & PO_NOARG));
}

static int has_range(const struct po_option *o)
{
	return o->min < o->max;
}

static int bad_number(struct po_ctx *c, const char *name, const struct po_option *o, const char *arg)
{
	const char *what = o->type == PO_DOUBLE ? "a number" : "an integer";
	if (!has_range(o))
		return fail(c, "%s: '%s' is not %s", name, arg,
			    o->type == PO_DOUBLE ? "a number" : "a non-negative integer");
	if (o->flags & PO_OPEN_MIN)
		return fail(c, "%s: '%s' is not %s above %.15g and at most %.15g", name, arg, what,
			    o->min, o->max);
	return fail(c, "%s: '%s' is not %s in %.15g..%.15g", name, arg, what, o->min, o->max);
}

static int in_range(const struct po_option *o, double v)
{
	if (!has_range(o))
		return 1;
	if (o->flags & PO_OPEN_MIN ? !(v > o->min) : !(v >= o->min))
		return 0;
	return v <= o->max;
}

static int apply(struct po_ctx *c, const struct po_option *o, const char *arg, void *base)
{
	char name[128];
	char *dst = (char *)base + o->off;
	uint64_t u;
	double d;
	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case PO_FLAG:
		*(int *)(void *)dst = o->ival;
		return 0;
	case PO_STRING:
		if ((o->flags & PO_NONEMPTY) && !*arg)
			return fail(c, "%s: %s must not be empty", name, o->argh ? o->argh : "the value");
		*(const char **)(void *)dst = arg;
		return 0;
	case PO_INT:
	case PO_U64:
		if (parse_u64(arg, &u) || !in_range(o, (double)u) || (o->type == PO_INT && u > 0x7fffffff))
			return bad_number(c, name, o, arg);
		if (o->type == PO_INT)
			*(int *)(void *)dst = (int)u;
		else
			*(uint64_t *)(void *)dst = u;
		return 0;
	case PO_DOUBLE:
		if (parse_double(arg, &d) || !in_range(o, d))
			return bad_number(c, name, o, arg);
		*(double *)(void *)dst = d;
		return 0;
	case PO_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(arg, o->choices[i])) {
				*(int *)(void *)dst = i;
				return 0;
			}
		{
			char list[256] = "";
			for (int i = 0; o->choices[i]; i++) {
				size_t l = strlen(list);
				snprintf(list + l, sizeof(list) - l, "%s%s", i ? (o->choices[i + 1] ? ", " : " or ") : "",
					 o->choices[i]);
			}
			return fail(c, "%s: '%s' is not %s", name, arg, list);
		}
	case PO_CALLBACK: {
		char cberr[4096];
		cberr[0] = 0;
		if (o->cb(o, arg, base, cberr, sizeof(cberr)) == 0)
			return 0;
		if (!strncmp(cberr, name, strlen(name)))   /* it names the option itself */
			return fail(c, "%s", cberr);
		return fail(c, "%s: %s", name, cberr[0] ? cberr : "bad value");
	}
	case PO_END:
		break;
	}
	return fail(c, "%s: internal error (option type)", name);
}

static const struct po_option *find_short(const struct po_option *opts, int ch)
{
	for (const struct po_option *o = opts; o->type != PO_END; o++)
		if (o->short_name && o->short_name == ch)
			return o;
	return NULL;
}

/* Exact name, else the one option the prefix abbreviates; *ambiguous set when
 * several do. */
static const struct po_option *find_long(const struct po_option *opts, const char *name, size_t len,
					 int *ambiguous)
{
	const struct po_option *hit = NULL;
	*ambiguous = 0;
	for (const struct po_option *o = opts; o->type != PO_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	for (const struct po_option *o = opts; o->type != PO_END; o++)
		if (o->long_name && !strncmp(o->long_name, name, len)) {
			if (hit)
				*ambiguous = 1;
			hit = o;
		}
	return *ambiguous ? NULL : hit;
}

int po_parse(const char *cmd, const struct po_option *opts, void *base, int argc, char **argv,
	     unsigned flags, char **rest, char *err, size_t errlen)
{
	struct po_ctx c = { cmd, err, errlen };
	char name[128];
	int n = 0, i;
	if (errlen)
		err[0] = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & PO_STOP_AT_NON_OPTION)
				break;
			rest[n++] = argv[i];
			continue;
		}
		if (a[1] == '-') {
			const char *nm = a + 2, *eq = strchr(nm, '=');
			size_t len = eq ? (size_t)(eq - nm) : strlen(nm);
			int amb;
			const struct po_option *o = find_long(opts, nm, len, &amb);
			if (amb) {
				char list[512] = "";
				for (const struct po_option *p = opts; p->type != PO_END; p++)
					if (p->long_name && !strncmp(p->long_name, nm, len)) {
						size_t l = strlen(list);
						snprintf(list + l, sizeof(list) - l, "%s--%s", l ? ", " : "",
							 p->long_name);
					}
				return fail(&c, "ambiguous option '--%.*s' (%s)", (int)len, nm, list);
			}
			if (!o)
				return fail(&c, "unknown option '--%.*s' (see 'wblab %s --help')", (int)len, nm,
					    cmd);
			opt_name(o, name, sizeof(name));
			const char *arg = NULL;
			if (!takes_value(o)) {
				if (eq)
					return fail(&c, "%s takes no value", name);
			} else if (eq) {
				arg = eq + 1;
			} else if (i + 1 < argc) {
				arg = argv[++i];
			} else {
				return fail(&c, "%s needs a value (%s)", name, o->argh ? o->argh : "VALUE");
			}
			if (apply(&c, o, arg, base))
				return -1;
			continue;
		}
		/* one or more short options: -q, -qj2, -t30, -t 30 */
		for (const char *p = a + 1; *p; p++) {
			const struct po_option *o = find_short(opts, (unsigned char)*p);
			if (!o)
				return fail(&c, "unknown option '-%c' (see 'wblab %s --help')", *p, cmd);
			opt_name(o, name, sizeof(name));
			if (!takes_value(o)) {
				if (apply(&c, o, NULL, base))
					return -1;
				continue;
			}
			const char *arg = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!arg)
				return fail(&c, "%s needs a value (%s)", name, o->argh ? o->argh : "VALUE");
			if (apply(&c, o, arg, base))
				return -1;
			break;
		}
	}
	for (; i < argc; i++)
		rest[n++] = argv[i];
	return n;
}

int po_parse_cmd(const char *cmd, const struct po_option *opts, void *base, int argc, char **argv,
		 unsigned flags, char **rest)
{
	char err[4608];
	int n = po_parse(cmd, opts, base, argc, argv, flags, rest, err, sizeof(err));
	if (n < 0)
		fprintf(stderr, "wblab %s\n", err);
	return n;
}

/* "  -s, --long ARGH" (or "      --long ARGH", "  -s ARGH") */
static int prefix(const struct po_option *o, char *buf, size_t n)
{
	const char *ah = takes_value(o) ? (o->argh ? o->argh : "VALUE") : NULL;
	if (o->short_name && o->long_name)
		return snprintf(buf, n, "  -%c, --%s%s%s", o->short_name, o->long_name, ah ? " " : "",
				ah ? ah : "");
	if (o->long_name)
		return snprintf(buf, n, "      --%s%s%s", o->long_name, ah ? " " : "", ah ? ah : "");
	return snprintf(buf, n, "  -%c%s%s", o->short_name, ah ? " " : "", ah ? ah : "");
}

#define PO_HELP_MAXCOL 26

static void help_line(FILE *f, const char *pre, int col, const char *help)
{
	int len = (int)strlen(pre);
	fputs(pre, f);
	if (len + 2 > col) {
		fputc('\n', f);
		len = 0;
	}
	for (const char *h = help ? help : "";;) {
		const char *nl = strchr(h, '\n');
		int l = nl ? (int)(nl - h) : (int)strlen(h);
		fprintf(f, "%*s%.*s\n", col - len, "", l, h);
		if (!nl || !nl[1])
			break;
		h = nl + 1;
		len = 0;
	}
}

void po_help(FILE *f, const struct po_option *opts)
{
	static const struct po_option help = { .type = PO_FLAG, .short_name = 'h', .long_name = "help",
					       .help = "this text" };
	char buf[256];
	int col = 0;
	for (const struct po_option *o = opts;; o++) {
		const struct po_option *p = o->type == PO_END ? &help : o;
		int len = prefix(p, buf, sizeof(buf));
		if (len + 2 <= PO_HELP_MAXCOL && len + 2 > col)
			col = len + 2;
		if (o->type == PO_END)
			break;
	}
	for (const struct po_option *o = opts;; o++) {
		const struct po_option *p = o->type == PO_END ? &help : o;
		prefix(p, buf, sizeof(buf));
		help_line(f, buf, col, p->help);
		if (o->type == PO_END)
			break;
	}
}
