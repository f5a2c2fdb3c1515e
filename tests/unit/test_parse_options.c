/* The declarative option parser: every type, ranges, errors, syntax, help. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/parse_options.h"

struct t {
	int flag, quiet, n, choice, calls;
	const char *str, *nonempty;
	uint64_t u;
	double d, above;
	char seen[64];
};

static int cb_shard(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct t *t = base;
	unsigned i, k;
	char end;
	(void)opt;
	if (sscanf(arg, "%u/%u%c", &i, &k, &end) != 2 || i < 1 || i > k) {
		snprintf(err, n, "'%s' is not I/N", arg);
		return -1;
	}
	t->calls++;
	snprintf(t->seen, sizeof(t->seen), "%u of %u", i, k);
	return 0;
}

static int cb_noarg(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt, (void)err, (void)n;
	assert_null(arg);
	((struct t *)base)->calls += 10;
	return 0;
}

static int cb_named(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt, (void)base;
	snprintf(err, n, "--set %s: bad", arg);
	return -1;
}

static const char *const fmts[] = { "text", "tsv", "json", NULL };

#define PO_STRUCT struct t
static const struct po_option opts[] = {
	OPT_FLAG('f', "flag", flag, "a flag"),
	OPT_FLAG('q', "quiet", quiet, "quiet"),
	OPT_STRING('s', "string", str, "S", "a string\nsecond line"),
	OPT_STRING_NONEMPTY('o', "out", nonempty, "DIR", "not empty"),
	OPT_INT('j', "jobs", n, "N", 1, 256, "an int"),
	OPT_U64(0, "seed", u, "N", 0, 0, "any u64"),
	OPT_DOUBLE('t', "runtime", d, "SEC", 0.1, 86400, "a double"),
	OPT_DOUBLE_ABOVE(0, "above", above, "X", 0, 1e6, "a double above 0"),
	OPT_CHOICE(0, "format", choice, "F", fmts, "a choice"),
	OPT_CALLBACK(0, "shard", "I/N", cb_shard, "a callback"),
	OPT_CALLBACK_NOARG(0, "bump", cb_noarg, "a callback without value"),
	OPT_CALLBACK(0, "set", "KEY=V", cb_named, "names itself"),
	OPT_FLAG(0, "repeat", flag, "for abbreviations"),
	OPT_FLAG(0, "report", quiet, "for abbreviations"),
	OPT_END(),
};

static char err[512];
static char *rest[32];

static int parse(struct t *t, unsigned flags, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	va_start(ap, flags);
	argv[argc++] = "cmd";
	for (char *a; (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	memset(t, 0, sizeof(*t));
	return po_parse("cmd", opts, t, argc, argv, flags, rest, err, sizeof(err));
}

static void types(void **state)
{
	struct t t;
	(void)state;
	assert_int_equal(parse(&t, 0, "--flag", "--string", "abc", "--jobs", "7", "--seed",
			       "18446744073709551615", "--runtime", "0.5", "--above", "1e6", "--format",
			       "json", "--shard", "2/3", "--bump", "-o", "d", NULL), 0);
	assert_int_equal(t.flag, 1);
	assert_string_equal(t.str, "abc");
	assert_int_equal(t.n, 7);
	assert_true(t.u == UINT64_MAX);
	assert_true(t.d == 0.5);
	assert_true(t.above == 1e6);
	assert_int_equal(t.choice, 2);
	assert_string_equal(t.seen, "2 of 3");
	assert_int_equal(t.calls, 11);
	assert_string_equal(t.nonempty, "d");
	assert_string_equal(err, "");
}

static void ranges(void **state)
{
	struct t t;
	(void)state;
	assert_int_equal(parse(&t, 0, "-j", "1", "-t", "86400", NULL), 0);
	assert_int_equal(parse(&t, 0, "-j", "0", NULL), -1);
	assert_string_equal(err, "cmd: --jobs: '0' is not an integer in 1..256");
	assert_int_equal(parse(&t, 0, "--jobs=257", NULL), -1);
	assert_int_equal(parse(&t, 0, "--jobs=-1", NULL), -1);
	assert_int_equal(parse(&t, 0, "--runtime", "abc", NULL), -1);
	assert_string_equal(err, "cmd: --runtime: 'abc' is not a number in 0.1..86400");
	assert_int_equal(parse(&t, 0, "-t", "0.09", NULL), -1);
	assert_int_equal(parse(&t, 0, "--above", "0", NULL), -1);
	assert_string_equal(err, "cmd: --above: '0' is not a number above 0 and at most 1000000");
	assert_int_equal(parse(&t, 0, "--above", "1e-9", NULL), 0);
	assert_int_equal(parse(&t, 0, "--seed", "x", NULL), -1);
	assert_string_equal(err, "cmd: --seed: 'x' is not a non-negative integer");
	assert_int_equal(parse(&t, 0, "--format", "xml", NULL), -1);
	assert_string_equal(err, "cmd: --format: 'xml' is not text, tsv or json");
	assert_int_equal(parse(&t, 0, "-o", "", NULL), -1);
	assert_string_equal(err, "cmd: --out: DIR must not be empty");
	assert_int_equal(parse(&t, 0, "--string=", NULL), 0);
	assert_string_equal(t.str, "");
}

static void errors(void **state)
{
	struct t t;
	(void)state;
	assert_int_equal(parse(&t, 0, "--bogus", NULL), -1);
	assert_string_equal(err, "cmd: unknown option '--bogus' (see 'wblab cmd --help')");
	assert_int_equal(parse(&t, 0, "--bogus=1", NULL), -1);
	assert_string_equal(err, "cmd: unknown option '--bogus' (see 'wblab cmd --help')");
	assert_int_equal(parse(&t, 0, "-x", NULL), -1);
	assert_string_equal(err, "cmd: unknown option '-x' (see 'wblab cmd --help')");
	assert_int_equal(parse(&t, 0, "-fx", NULL), -1);
	assert_string_equal(err, "cmd: unknown option '-x' (see 'wblab cmd --help')");
	assert_int_equal(parse(&t, 0, "--runtime", NULL), -1);
	assert_string_equal(err, "cmd: --runtime needs a value (SEC)");
	assert_int_equal(parse(&t, 0, "-t", NULL), -1);
	assert_string_equal(err, "cmd: --runtime needs a value (SEC)");
	assert_int_equal(parse(&t, 0, "--flag=1", NULL), -1);
	assert_string_equal(err, "cmd: --flag takes no value");
	assert_int_equal(parse(&t, 0, "--shard", "3/2", NULL), -1);
	assert_string_equal(err, "cmd: --shard: '3/2' is not I/N");
	assert_int_equal(parse(&t, 0, "--set", "k=v", NULL), -1);
	assert_string_equal(err, "cmd: --set k=v: bad");
	assert_int_equal(parse(&t, 0, "--re", NULL), -1);
	assert_string_equal(err, "cmd: ambiguous option '--re' (--repeat, --report)");
	char small[8];
	char *argv[] = { "cmd", "--bogus" };
	struct t t2 = { 0 };
	assert_int_equal(po_parse("cmd", opts, &t2, 2, argv, 0, rest, small, sizeof(small)), -1);
	assert_int_equal(strlen(small), 7);
}

static void syntax(void **state)
{
	struct t t;
	(void)state;
	/* --opt=value and --opt value, -sVALUE and -s VALUE */
	assert_int_equal(parse(&t, 0, "--string=a=b", "-j3", NULL), 0);
	assert_string_equal(t.str, "a=b");
	assert_int_equal(t.n, 3);
	assert_int_equal(parse(&t, 0, "-s", "x", "-j", "4", NULL), 0);
	assert_string_equal(t.str, "x");
	assert_int_equal(t.n, 4);
	/* clusters: flags, then one taking the rest or the next argument */
	assert_int_equal(parse(&t, 0, "-fqj2", NULL), 0);
	assert_true(t.flag && t.quiet && t.n == 2);
	assert_int_equal(parse(&t, 0, "-qs", "v", NULL), 0);
	assert_true(t.quiet && !strcmp(t.str, "v"));
	/* a value may start with '-' */
	assert_int_equal(parse(&t, 0, "-s", "-f", NULL), 0);
	assert_string_equal(t.str, "-f");
	assert_int_equal(t.flag, 0);
	/* unique abbreviations; an exact name wins */
	assert_int_equal(parse(&t, 0, "--run", "5", "--for=tsv", NULL), 0);
	assert_true(t.d == 5 && t.choice == 1);
	assert_int_equal(parse(&t, 0, "--rep", NULL), -1);
	/* the last of a repeated option wins */
	assert_int_equal(parse(&t, 0, "-j", "2", "-j", "9", NULL), 0);
	assert_int_equal(t.n, 9);
}

static void positionals(void **state)
{
	struct t t;
	(void)state;
	/* options after arguments, '-' an argument, '--' ends options */
	assert_int_equal(parse(&t, 0, "a", "-f", "-", "b", "--", "-q", "--x", NULL), 5);
	assert_true(t.flag && !t.quiet);
	assert_string_equal(rest[0], "a");
	assert_string_equal(rest[1], "-");
	assert_string_equal(rest[2], "b");
	assert_string_equal(rest[3], "-q");
	assert_string_equal(rest[4], "--x");
	/* stop at the first argument */
	assert_int_equal(parse(&t, PO_STOP_AT_NON_OPTION, "-f", "a", "-q", NULL), 2);
	assert_true(t.flag && !t.quiet);
	assert_string_equal(rest[0], "a");
	assert_string_equal(rest[1], "-q");
	assert_int_equal(parse(&t, 0, NULL), 0);
	assert_int_equal(parse(&t, PO_STOP_AT_NON_OPTION, "--", "-f", NULL), 1);
	assert_int_equal(t.flag, 0);
}

static void help(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	(void)state;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	po_help(f, opts);
	fclose(f);
	const char *want =
		"  -f, --flag         a flag\n"
		"  -q, --quiet        quiet\n"
		"  -s, --string S     a string\n"
		"                     second line\n"
		"  -o, --out DIR      not empty\n"
		"  -j, --jobs N       an int\n"
		"      --seed N       any u64\n"
		"  -t, --runtime SEC  a double\n"
		"      --above X      a double above 0\n"
		"      --format F     a choice\n"
		"      --shard I/N    a callback\n"
		"      --bump         a callback without value\n"
		"      --set KEY=V    names itself\n"
		"      --repeat       for abbreviations\n"
		"      --report       for abbreviations\n"
		"  -h, --help         this text\n";
	assert_string_equal(buf, want);
	free(buf);
	/* an option too wide for the column gets its help on the next line */
	static const struct po_option wide[] = {
		OPT_FLAG('a', "all", flag, "all"),
		OPT_STRING(0, "a-very-long-option-name", str, "VALUE", "wide"),
		OPT_END(),
	};
	buf = NULL;
	f = open_memstream(&buf, &len);
	po_help(f, wide);
	fclose(f);
	assert_string_equal(buf, "  -a, --all   all\n"
				 "      --a-very-long-option-name VALUE\n"
				 "              wide\n"
				 "  -h, --help  this text\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(types),       cmocka_unit_test(ranges),      cmocka_unit_test(errors),
		cmocka_unit_test(syntax),      cmocka_unit_test(positionals), cmocka_unit_test(help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
