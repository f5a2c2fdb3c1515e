#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "parse_options.h"
#include "sim_matrix.h"
#include "set_sweep.h"
#include "sim_options.h"
#include "../sim/sim.h"
#include "../throttle/policy.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

/* "wblab CMD: ...", the form of the option parser's own errors. */
static void __attribute__((format(printf, 2, 3))) matrix_error(const struct sim_matrix *m,
							   const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "wblab %s: ", m->cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The --policy plug-in's model joins the list unless it is named in it. */
static int add_policy(struct sim_matrix *m)
{
	const struct throttle_model *pm = policy_model();
	if (!pm)
		return 0;
	for (int i = 0; i < m->nm; i++)
		if (m->models[i] == pm)
			return 0;
	if (m->nm == SIM_MAX_MODELS) {
		matrix_error(m, "--kernel: more than %d kernel models", SIM_MAX_MODELS);
		return -1;
	}
	m->models[m->nm++] = pm;
	return 0;
}

/* -k LIST: every item a model's name (or the plug-in's), none empty and
 * none twice - a model listed twice would run each case twice into one
 * result directory. */
static int parse_kernels(struct sim_matrix *m, const char *arg)
{
	m->nm = 0;
	if (!arg)
		return add_policy(m);
	if (strcmp(arg, "all") == 0) {
		for (const struct throttle_model *const *t = throttle_models(); *t; t++)
			if (!(*t)->alias_of && m->nm < SIM_MAX_MODELS)
				m->models[m->nm++] = *t;
		return add_policy(m);
	}
	for (const char *k = arg;; k++) {
		char name[128];
		size_t kl = strcspn(k, ",");
		if (kl == 0) {
			matrix_error(m, "--kernel: '%s' has an empty item", arg);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)kl, k);
		const struct throttle_model *t = kl < sizeof(name) ? throttle_lookup(name) : NULL;
		if (!t && policy_model() && strcmp(name, policy_model()->name) == 0)
			t = policy_model();
		if (!t) {
			matrix_error(m, "--kernel: unknown kernel model '%.*s' (see 'wblab sim --help')",
				     (int)(kl < 100 ? kl : 100), k);
			return -1;
		}
		for (int i = 0; i < m->nm; i++)
			if (m->models[i] == t) {
				matrix_error(m, "--kernel: '%s' is listed twice", name);
				return -1;
			}
		if (m->nm == SIM_MAX_MODELS) {
			matrix_error(m, "--kernel: more than %d kernel models", SIM_MAX_MODELS);
			return -1;
		}
		m->models[m->nm++] = t;
		k += kl;
		if (!*k)
			break;
	}
	return add_policy(m);
}

static int opt_shard(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct sim_matrix *m = base;
	unsigned i, k;
	char end;
	(void)opt;
	if (sscanf(arg, "%u/%u%c", &i, &k, &end) != 2 || k < 1 || k > 1000000 || i < 1 || i > k) {
		snprintf(err, n, "'%s' is not I/N with 1 <= I <= N", arg);
		return -1;
	}
	m->shard_i = (int)i;
	m->shard_n = (int)k;
	return 0;
}

static int opt_set(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct sim_matrix *m = base;
	int nv = set_sweep_size(arg);
	(void)opt;
	if (m->nsets == SIM_MAX_SETS) {
		snprintf(err, n, "too many --set options (at most %d)", SIM_MAX_SETS);
		return -1;
	}
	if (strlen(arg) >= SET_SWEEP_MAX) {
		/* combo_set copies it whole; set_sweep_check words the error */
		set_sweep_check(arg, err, n);
		return -1;
	}
	if (nv == 1) {
		if (sim_set_option(&m->p, arg, err, n))
			return -1;
	} else if (set_sweep_check(arg, err, n)) {
		/* the list is applied per combination when the jobs are made */
		return -1;
	}
	size_t kl = (size_t)(strchr(arg, '=') - arg);
	for (int i = 0; i < m->nsets; i++)
		if (m->sweep_n[i] > 1 && strncmp(m->sets[i], arg, kl + 1) == 0) {
			/* a later plain value would override every swept one, under
			 * directories that name the swept values */
			if (nv == 1)
				snprintf(err, n, "--set '%s': %.*s is swept by an earlier --set", arg,
					 (int)kl, arg);
			else
				snprintf(err, n, "--set '%s': %.*s is swept twice", arg, (int)kl, arg);
			return -1;
		}
	m->sweep_n[m->nsets] = nv;
	m->sets[m->nsets++] = arg;
	return 0;
}

/* --set i under combination c: "KEY=V" (the combination's value for a
 * sweep; the set as given otherwise).  The first sweep varies slowest. */
static void combo_set(const struct sim_matrix *m, int c, int i, char *buf, size_t n)
{
	if (m->sweep_n[i] == 1) {
		snprintf(buf, n, "%s", m->sets[i]);
		return;
	}
	for (int k = m->nsets - 1; k > i; k--)
		if (m->sweep_n[k] > 1)
			c /= m->sweep_n[k];
	set_sweep_item(m->sets[i], c % m->sweep_n[i], buf, n);
}

/* The params of every combination, replaying the --set options in order. */
static int make_combos(struct sim_matrix *m)
{
	char err[512], one[SET_SWEEP_MAX];
	long nc = 1;
	for (int i = 0; i < m->nsets; i++) {
		nc *= m->sweep_n[i];
		if (nc > SIM_MAX_COMBOS) {
			matrix_error(m, "--set sweeps: more than %d combinations", SIM_MAX_COMBOS);
			return -1;
		}
	}
	m->ncombos = (int)nc;
	if (nc == 1)
		return 0;
	if (!(m->pv = calloc((size_t)nc, sizeof(*m->pv)))) {
		matrix_error(m, "out of memory");
		return -1;
	}
	for (int c = 0; c < m->ncombos; c++) {
		params_defaults(&m->pv[c]);
		for (int i = 0; i < m->nsets; i++) {
			combo_set(m, c, i, one, sizeof(one));
			if (sim_set_option(&m->pv[c], one, err, sizeof(err))) {
				matrix_error(m, "%s", err);
				return -1;
			}
		}
	}
	return 0;
}

/* A swept combination's result goes under GROUP/KEY=V/... (one part per
 * swept key), so its directory, its row in compare and its cmdline name it. */
static int combo_group(const struct sim_matrix *m, int c, struct wb_case *cs, char *err, size_t n)
{
	char one[SET_SWEEP_MAX];
	for (int i = 0; i < m->nsets; i++) {
		if (m->sweep_n[i] == 1)
			continue;
		combo_set(m, c, i, one, sizeof(one));
		size_t gl = strlen(cs->group);
		if (gl + 1 + strlen(one) >= sizeof(cs->group)) {
			snprintf(err, n, "case '%.160s': group '%.96s/%.100s' too long (at most %zu "
				 "characters)", cs->name, cs->group, one, sizeof(cs->group) - 1);
			return -1;
		}
		cs->group[gl] = '/';
		memcpy(cs->group + gl + 1, one, strlen(one) + 1);   /* fits: checked above */
	}
	return case_group_check(cs->group, err, n);
}

static int opt_policy(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt, (void)base;
	return policy_load(arg, err, n) ? 0 : -1;
}

static int opt_cases_from(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct sim_matrix *m = base;
	(void)opt;
	return case_expand_file(arg, &m->cases, err, n) ? -1 : 0;
}

#define PO_STRUCT struct sim_matrix
const struct po_option sim_matrix_options[] = {
	OPT_STRING('k', "kernel", kernels, "LIST",
		   "comma-separated models, or 'all' (default:\n"
		   "3.1-vanilla,3.2-ioless)"),
	SIM_OPT_RUNTIME(runtime, "simulated seconds per case (default 300)"),
	OPT_STRING_NONEMPTY('o', "out", out, "DIR", "results root (default ./results)"),
	SIM_OPT_SEED(seed, "RNG seed (default 1); same inputs + seed = identical files"),
	OPT_INT(0, "repeat", repeat, "N", 1, 100000,
		"run every (case, model) N times: run R (1..N) uses seed\n"
		"S+R-1 and is CASE-KERNEL.R (run 1: CASE-KERNEL), as\n"
		"'wblab run --repeat' names them; compare averages\n"
		"them and tests the differences (docs/compare.md)"),
	OPT_INT(0, "run", run, "R", 1, 100000,
		"make only run R (its result dir and meta run), with the\n"
		"seed given: each repeat's cmdline uses it"),
	OPT_CALLBACK(0, "set", "KEY=VAL", opt_set,
		     "override a model parameter (repeatable; list below);\n"
		     "KEY=V1,V2,... sweeps it: every value with every case,\n"
		     "under GROUP/KEY=V/ (compare -c KEY puts them side by side)"),
	SIM_OPT_JOBS(jobs),
	OPT_FLAG(0, "no-trace", no_trace, "skip the trace file (stats are still computed)"),
	SIM_OPT_TRACE_FORMAT(text_trace,
			     "dat (default): trace.dat, a trace-cmd file (v7, zstd)\n"
			     "with the kernel's event formats ('trace-cmd report' or\n"
			     "'wblab trace DIR' print it); text: ftrace text `trace`"),
	OPT_CALLBACK(0, "cases-from", "F", opt_cases_from,
		     "also the cases listed in file F, one per line ('#'\n"
		     "comments, blank lines), each expanded as below"),
	OPT_CALLBACK(0, "shard", "I/N", opt_shard,
		     "only the I-th of N slices of the (case, model) jobs:\n"
		     "N shards together run every job exactly once"),
	OPT_CALLBACK(0, "policy", "FILE", opt_policy,
		     "also run the policy plug-in FILE (a .so built against\n"
		     "wblab/policy.h) as the kernel policy-NAME, alone when\n"
		     "no -k is given (docs/policies.md)"),
	OPT_FLAG('q', "quiet", quiet, "no progress line on a terminal"),
	OPT_END(),
};

int sim_matrix_parse(struct sim_matrix *m, int argc, char **argv)
{
	char err[4600];
	memset(m, 0, sizeof(*m));
	m->cmd = argv[0];
	m->out = "results";
	m->runtime = 300;
	m->seed = 1;
	m->repeat = 1;
	m->jobs = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	params_defaults(&m->p);
	char **cases = calloc((size_t)argc, sizeof(*cases));
	int n = cases ? po_parse_cmd(argv[0], sim_matrix_options, m, argc, argv, PO_STOP_AT_NON_OPTION,
				     cases) : -1;
	if (!cases)
		matrix_error(m, "out of memory");
	for (int i = 0; i < n; i++)
		if (case_expand(cases[i], &m->cases, err, sizeof(err))) {
			matrix_error(m, "CASE '%.200s': %s", cases[i], err);
			n = -1;
			break;
		}
	free(cases);
	if (n < 0)
		return -1;
	if (m->run && m->repeat > 1) {
		matrix_error(m, "--run and --repeat exclude each other");
		return -1;
	}
	if (m->repeat > 1 && m->seed > UINT64_MAX - (uint64_t)(m->repeat - 1)) {
		/* run R's seed S+R-1 would wrap to a small seed another run uses */
		matrix_error(m, "--seed %llu with --repeat %d: the last run's seed would pass %llu",
			     (unsigned long long)m->seed, m->repeat, (unsigned long long)UINT64_MAX);
		return -1;
	}
	if (!m->cases.n) {
		matrix_error(m, "no CASE (see 'wblab %s --help')", argv[0]);
		return -1;
	}
	if (!m->kernels && !policy_model())
		m->kernels = "3.1-vanilla,3.2-ioless";
	if (parse_kernels(m, m->kernels))
		return -1;
	return make_combos(m);
}

/* The command that makes exactly job j's result: the sweep's one value of
 * each swept --set. */
static char **job_argv(const struct sim_matrix *m, const struct sim_job *j, int combo, int *argc)
{
	char one[SIM_MAX_SETS][SET_SWEEP_MAX];
	const char *sets[SIM_MAX_SETS];
	for (int i = 0; i < m->nsets; i++) {
		combo_set(m, combo, i, one[i], sizeof(one[i]));
		sets[i] = one[i];
	}
	return sim_job_cmdline(j, sets, m->nsets, argc);
}

struct case_ref {
	const struct wb_case *c;
	int i;
};

static int same_case(const struct wb_case *a, const struct wb_case *b)
{
	return !strcmp(a->group, b->group) && !strcmp(a->name, b->name);
}

/* GROUP/CASE, then the place in the list */
static int cmp_case_ref(const void *a, const void *b)
{
	const struct case_ref *x = a, *y = b;
	int d = strcmp(x->c->group, y->c->group);
	if (!d)
		d = strcmp(x->c->name, y->c->name);
	return d ? d : (x->i > y->i) - (x->i < y->i);
}

/* err about case i: "--cases-from: FILE:LINE: err" for a case from a file */
static void case_error(const struct sim_matrix *m, int i, const char *err)
{
	if (m->cases.from && m->cases.from[i])
		matrix_error(m, "--cases-from: %s: %s", m->cases.from[i], err);
	else
		matrix_error(m, "%s", err);
}

/* "FILE:LINE" for a case from --cases-from. */
static void case_origin(const struct sim_matrix *m, int i, char *buf, size_t n)
{
	const char *from = m->cases.from ? m->cases.from[i] : NULL;
	snprintf(buf, n, "%s", from ? from : "the command line");
}

/* Every case of the matrix parsed into cs[], each GROUP/CASE once: two
 * spellings of one case (the same line twice, "4k" and "4096", the default
 * group written out) would run twice into one result directory. */
static int parse_cases(const struct sim_matrix *m, struct wb_case *cs)
{
	char err[512], o1[300], o2[300];
	for (int i = 0; i < m->cases.n; i++)
		if (case_parse(m->cases.v[i], &cs[i], err, sizeof(err))) {
			case_error(m, i, err);
			return -1;
		}
	struct case_ref *r = calloc(m->cases.n > 0 ? (size_t)m->cases.n : 1, sizeof(*r));
	if (!r) {
		matrix_error(m, "out of memory");
		return -1;
	}
	for (int i = 0; i < m->cases.n; i++)
		r[i] = (struct case_ref){ &cs[i], i };
	qsort(r, (size_t)m->cases.n, sizeof(*r), cmp_case_ref);
	/* the second listing of a case follows its first in the sorted order;
	 * of all of them the one listed earliest, so the message is stable */
	int first = -1, second = -1;
	for (int k = 1; k < m->cases.n; k++)
		if (same_case(r[k].c, r[k - 1].c) && (k < 2 || !same_case(r[k - 1].c, r[k - 2].c)) &&
		    (second < 0 || r[k].i < second)) {
			first = r[k - 1].i;
			second = r[k].i;
		}
	free(r);
	if (second < 0)
		return 0;
	case_origin(m, first, o1, sizeof(o1));
	case_origin(m, second, o2, sizeof(o2));
	matrix_error(m, "case %s/%s is listed twice, as '%.200s' (%s) and '%.200s' (%s): one "
		     "result directory", cs[first].group, cs[first].name, m->cases.v[first], o1,
		     m->cases.v[second], o2);
	return -1;
}

int sim_matrix_jobs(struct sim_matrix *m, struct sim_job **jsp, int *np)
{
	char err[512];
	long total = (long)m->cases.n * m->ncombos * m->nm * m->repeat;
	int n = 0, idx = 0;
	*jsp = NULL;
	*np = 0;
	if (total > 10 * 1000 * 1000) {
		matrix_error(m, "%ld jobs: more than 10000000", total);
		return -1;
	}
	struct sim_job *js = calloc((size_t)(total ? total : 1), sizeof(*js));
	struct wb_case *parsed = calloc(m->cases.n > 0 ? (size_t)m->cases.n : 1, sizeof(*parsed));
	unsigned char *warned = calloc(params_count(), 1);   /* --set keys warned of */
	if (!js || !parsed || !warned) {
		matrix_error(m, "out of memory");
		goto fail;
	}
	if (parse_cases(m, parsed))
		goto fail;
	for (int i = 0; i < m->cases.n; i++) {
		for (int c = 0; c < m->ncombos; c++) {
			struct wb_case cs = parsed[i];
			const struct sim_params *p = m->pv ? &m->pv[c] : &m->p;
			if ((m->pv && combo_group(m, c, &cs, err, sizeof(err))) ||
			    sim_check(&cs, p, err, sizeof(err))) {
				case_error(m, i, err);
				goto fail;
			}
			for (int k = 0; k < m->nm; k++)
				if (sim_check_model(p, m->models[k], err, sizeof(err))) {
					case_error(m, i, err);
					goto fail;
				}
			for (int k = 0; k < m->nm; k++)
				sim_warn_unused(m->cmd, m->cases.v[i], &cs, p, m->models[k], warned);
			for (int k = 0; k < m->nm * m->repeat; k++, idx++) {
				int r = k % m->repeat;
				if (m->shard_n && idx % m->shard_n != m->shard_i - 1)
					continue;
				struct sim_job *j = &js[n];
				*j = (struct sim_job){ .c = cs, .model = m->models[k / m->repeat],
					.kernel_name = m->models[k / m->repeat]->name, .p = p,
					.seed = m->seed + (uint64_t)r, .run = m->run ? m->run : r + 1,
					.runtime = m->runtime, .out = m->out, .no_trace = m->no_trace,
					.text_trace = m->text_trace };
				if (!(j->argv = job_argv(m, j, c, &j->argc))) {
					matrix_error(m, "out of memory");
					goto fail;
				}
				n++;
			}
		}
	}
	free(parsed);
	free(warned);
	*jsp = js;
	*np = n;
	return 0;
fail:
	free(parsed);
	free(warned);
	sim_matrix_free(m, js, n);
	return -1;
}

void sim_matrix_free(struct sim_matrix *m, struct sim_job *js, int n)
{
	if (js)
		sim_jobs_free_cmdlines(js, n);
	free(js);
	free(m->pv);
	m->pv = NULL;
	case_list_free(&m->cases);
}

int sim_matrix_load(struct sim_matrix *m, int argc, char **argv, struct sim_job **js, int *n)
{
	if (sim_matrix_parse(m, argc, argv)) {
		free(m->pv);
		m->pv = NULL;
		case_list_free(&m->cases);
		return -1;
	}
	return sim_matrix_jobs(m, js, n);
}
