/* One declarative option parser for every subcommand, in the style of git's
 * parse-options: a table of {short, long, type, destination, help} from which
 * both the parsing and the option lines of --help come.
 *
 * Destinations are offsets into a struct the caller passes to po_parse, so a
 * table is a static const object and parsing is reentrant.  In a file, define
 * PO_STRUCT as that struct type, then build the table with the OPT_* macros
 * (each checks the member's type at compile time):
 *
 *   #define PO_STRUCT struct cli
 *   static const struct po_option opts[] = {
 *           OPT_DOUBLE('t', "runtime", runtime, "SEC", 0.1, 86400, "seconds per case"),
 *           OPT_FLAG(0, "no-trace", no_trace, "skip the trace"),
 *           OPT_END(),
 *   };
 *
 * Syntax: --long VALUE, --long=VALUE, unique abbreviations of a long name
 * (an exact name always wins), -s VALUE, -sVALUE, clusters of short flags
 * (-qj2), "--" ends the options, a lone "-" is an argument.  A value is taken
 * even when it starts with '-' (-t -5 is --runtime '-5').  Without
 * PO_STOP_AT_NON_OPTION options may follow arguments; with it, the first
 * argument ends the options (sim, seed: the canonical order).
 *
 * Errors are one line, "CMD: ..." in err; po_parse_cmd prints it as
 * "wblab CMD: ..." on stderr.  The caller then exits EXIT_USAGE (2). */
#ifndef WBLAB_PARSE_OPTIONS_H
#define WBLAB_PARSE_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum po_type {
	PO_END,
	PO_FLAG,      /* int = ival */
	PO_STRING,    /* const char * = the argument (not copied) */
	PO_INT,       /* int: a non-negative integer, in [min, max] when they differ */
	PO_U64,       /* uint64_t: likewise */
	PO_DOUBLE,    /* double: likewise (PO_OPEN_MIN: min excluded) */
	PO_CHOICE,    /* int = index of the argument in choices[] */
	PO_CALLBACK,  /* cb(opt, arg, base, err, errlen); arg NULL with PO_NOARG */
};

/* po_option.flags */
#define PO_NONEMPTY  1u   /* PO_STRING: refuse "" */
#define PO_OPEN_MIN  2u   /* PO_DOUBLE: the range excludes min */
#define PO_NOARG     4u   /* PO_CALLBACK: takes no value */

/* po_parse flags */
#define PO_STOP_AT_NON_OPTION 1u

struct po_option;
/* Returns 0, or -1 with the reason in err; po_parse puts "CMD: --name: " before
 * it ("CMD: " alone when it starts with "--name" already). */
typedef int (*po_callback)(const struct po_option *opt, const char *arg, void *base, char *err,
			   size_t errlen);

struct po_option {
	enum po_type type;
	int short_name;            /* 0: none */
	const char *long_name;     /* NULL: none */
	size_t off;                /* destination: offset into the caller's struct */
	const char *argh;          /* the value's name in --help ("SEC"); NULL: no value */
	const char *help;          /* '\n' starts a continuation line */
	double min, max;           /* numeric range, when min < max */
	int ival;                  /* PO_FLAG: the value stored */
	unsigned flags;
	const char *const *choices;   /* PO_CHOICE, NULL-terminated */
	po_callback cb;
};

#define PO_TYPECHECK_(f, T) (0 * sizeof(char[_Generic(((PO_STRUCT *)0)->f, T: 1, default: -1)]))
#define PO_OFF_(f, T) (offsetof(PO_STRUCT, f) + PO_TYPECHECK_(f, T))

#define OPT_END() { .type = PO_END }
#define OPT_FLAG(s, l, f, h) \
	{ .type = PO_FLAG, .short_name = s, .long_name = l, .off = PO_OFF_(f, int), .help = h, .ival = 1 }
#define OPT_STRING(s, l, f, a, h) \
	{ .type = PO_STRING, .short_name = s, .long_name = l, .off = PO_OFF_(f, const char *), \
	  .argh = a, .help = h }
#define OPT_STRING_NONEMPTY(s, l, f, a, h) \
	{ .type = PO_STRING, .short_name = s, .long_name = l, .off = PO_OFF_(f, const char *), \
	  .argh = a, .help = h, .flags = PO_NONEMPTY }
#define OPT_INT(s, l, f, a, lo, hi, h) \
	{ .type = PO_INT, .short_name = s, .long_name = l, .off = PO_OFF_(f, int), .argh = a, \
	  .help = h, .min = lo, .max = hi }
#define OPT_U64(s, l, f, a, lo, hi, h) \
	{ .type = PO_U64, .short_name = s, .long_name = l, .off = PO_OFF_(f, uint64_t), .argh = a, \
	  .help = h, .min = lo, .max = hi }
#define OPT_DOUBLE(s, l, f, a, lo, hi, h) \
	{ .type = PO_DOUBLE, .short_name = s, .long_name = l, .off = PO_OFF_(f, double), .argh = a, \
	  .help = h, .min = lo, .max = hi }
#define OPT_DOUBLE_ABOVE(s, l, f, a, lo, hi, h) \
	{ .type = PO_DOUBLE, .short_name = s, .long_name = l, .off = PO_OFF_(f, double), .argh = a, \
	  .help = h, .min = lo, .max = hi, .flags = PO_OPEN_MIN }
#define OPT_CHOICE(s, l, f, a, ch, h) \
	{ .type = PO_CHOICE, .short_name = s, .long_name = l, .off = PO_OFF_(f, int), .argh = a, \
	  .help = h, .choices = ch }
/* The callback finds its destination itself (base is the caller's struct). */
#define OPT_CALLBACK(s, l, a, fn, h) \
	{ .type = PO_CALLBACK, .short_name = s, .long_name = l, .argh = a, .help = h, .cb = fn }
#define OPT_CALLBACK_NOARG(s, l, fn, h) \
	{ .type = PO_CALLBACK, .short_name = s, .long_name = l, .help = h, .cb = fn, .flags = PO_NOARG }

/* Parses argv[1..argc-1] (argv[0] is the command name, used in errors) into
 * base.  argv is not modified; the arguments that are not options go, in
 * order, to rest[] (room for argc pointers).  Returns their number, or -1
 * with a one-line "CMD: ..." error in err. */
int po_parse(const char *cmd, const struct po_option *opts, void *base, int argc, char **argv,
	     unsigned flags, char **rest, char *err, size_t errlen);
/* po_parse, printing its error as "wblab CMD: ..." on stderr. */
int po_parse_cmd(const char *cmd, const struct po_option *opts, void *base, int argc, char **argv,
		 unsigned flags, char **rest);

/* The option lines of --help, aligned, with "-h, --help" last. */
void po_help(FILE *f, const struct po_option *opts);

#endif
