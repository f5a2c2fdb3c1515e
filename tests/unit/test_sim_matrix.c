/* The command line of `wblab sim` / `wblab jobs` (src/cli/sim_matrix.c,
 * set_sweep.c): every job names its own result directory (no model, case or
 * swept value twice, however spelled), --set sweeps compare values, not
 * text, the errors are one line in the "wblab CMD: ..." form and name the
 * --cases-from FILE:LINE, --seed + --repeat does not wrap, and the job
 * lines write -t as given. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/set_sweep.h"
#include "cli/sim_matrix.h"

#define C1 "ext4-1dd-4k-8p-4096M-100M:10"

static char errbuf[4096];
static struct sim_matrix m;
static struct sim_job *js;
static int njobs;

/* sim_matrix_load of "jobs ARGS..." (NULL-terminated), with what it printed
 * on stderr in errbuf; the jobs stay in js/njobs until done() */
static int load(const char *first, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;
	argv[argc++] = (char *)"jobs";
	va_start(ap, first);
	for (const char *a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	js = NULL;
	njobs = 0;
	int rc = sim_matrix_load(&m, argc, argv, &js, &njobs);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t n = fread(errbuf, 1, sizeof(errbuf) - 1, tmp);
	errbuf[n] = 0;
	fclose(tmp);
	return rc;
}

static void done(void)
{
	sim_matrix_free(&m, js, njobs);
	js = NULL;
	njobs = 0;
}

/* refused with one line of the form "wblab jobs: ..." holding needle */
static void refused(int rc, const char *needle)
{
	if (rc == 0)
		fail_msg("accepted; wanted an error with '%s'", needle);
	if (strncmp(errbuf, "wblab jobs: ", 12) || !strstr(errbuf, needle) ||
	    strchr(errbuf, '\n') != errbuf + strlen(errbuf) - 1)
		fail_msg("error '%s' is not one 'wblab jobs: ' line with '%s'", errbuf, needle);
}

/* argument i of job j */
static const char *arg_of(int j, const char *opt)
{
	for (int i = 0; i + 1 < js[j].argc; i++)
		if (!strcmp(js[j].argv[i], opt))
			return js[j].argv[i + 1];
	return NULL;
}

static void test_kernel_list(void **state)
{
	(void)state;
	refused(load("-k", "current,current", C1, NULL), "--kernel: 'current' is listed twice");
	refused(load("-k", "current,", C1, NULL), "--kernel: 'current,' has an empty item");
	refused(load("-k", ",current", C1, NULL), "--kernel: ',current' has an empty item");
	refused(load("-k", "current,,3.2-ioless", C1, NULL), "empty item");
	refused(load("-k", "", C1, NULL), "empty item");
	refused(load("-k", "bogus", C1, NULL), "--kernel: unknown kernel model 'bogus'");
	/* an alias is its own result directory, so it is not a repeat */
	assert_int_equal(load("-k", "current,3.2-ioless,3.1-vanilla,3.1.0-rc8-vanilla+", C1, NULL), 0);
	assert_int_equal(njobs, 4);
	assert_string_equal(js[3].kernel_name, "3.1.0-rc8-vanilla+");
	done();
}

static void test_same_case_twice(void **state)
{
	(void)state;
	refused(load("-k", "current", C1, C1, NULL), "is listed twice");
	/* other spellings of one result directory */
	refused(load("-k", "current", C1, "thresh=100M/ext4-1dd-4096-8p-4096M-100M:10", NULL),
		"case thresh=100M/" C1 " is listed twice");
	refused(load("-k", "current", "ext4-{1,2,1}dd-4k-8p-4096M-100M:10", NULL), "listed twice");
	/* the first repeat in listing order is named, with both spellings */
	refused(load("-k", "current", "ext4-2dd-4k-8p-4096M-100M:10", C1, "g/" C1, C1,
		     "ext4-2dd-4k-8p-4096M-100M:10", NULL),
		"case thresh=100M/" C1 " is listed twice, as '" C1 "' (the command line) and '" C1
		"' (the command line)");
	/* the same case under another group is another directory */
	assert_int_equal(load("-k", "current", C1, "g/" C1, "ext4-2dd-4k-8p-4096M-100M:10", NULL), 0);
	assert_int_equal(njobs, 3);
	done();
}

static void test_cases_from_names_file_line(void **state)
{
	(void)state;
	char path[] = "/tmp/wblab-unit-cf.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("# cases\n" C1 "\n\nzfs-1dd-4k-8p-4096M-100M:10\n", f);
	fclose(f);
	char want[200];
	snprintf(want, sizeof(want), "--cases-from: %s:4: case 'zfs-", path);
	refused(load("-k", "current", "--cases-from", path, NULL), want);
	f = fopen(path, "w");
	fputs("ext4-2dd-4k-8p-4096M-100M:10\nbogus\n", f);
	fclose(f);
	snprintf(want, sizeof(want), "--cases-from: %s:2: case 'bogus'", path);
	refused(load("-k", "current", "--cases-from", path, NULL), want);
	f = fopen(path, "w");
	fputs("ext4-2dd-4k-8p-4096M-100M:10\n" C1 "\n", f);
	fclose(f);
	snprintf(want, sizeof(want), "as '" C1 "' (%s:2) and '" C1 "' (the command line)", path);
	refused(load("-k", "current", "--cases-from", path, C1, NULL), want);
	unlink(path);
}

static void test_sweep_values_compared_by_value(void **state)
{
	(void)state;
	refused(load("--set", "disk.bw_mbps=40,40.0,80", C1, NULL), "'40' is listed twice (as '40.0')");
	refused(load("--set", "hz=1e3,1000", C1, NULL), "'1e3' is listed twice (as '1000')");
	refused(load("--set", "hz=250,1000,250", C1, NULL), "'250' is listed twice");
	refused(load("--set", "dev.model=ssd,fifo,ssd", C1, NULL), "'ssd' is listed twice");
	refused(load("--set", "hz=0x3e8", C1, NULL), "bad value '0x3e8'");
	refused(load("--set", "hz=100,0x3e8", C1, NULL), "bad value '0x3e8'");
	refused(load("--set", "hz=100,", C1, NULL), "empty value");
	/* a whole number in any decimal spelling sets an integer key */
	assert_int_equal(load("-k", "current", "--set", "hz=1e2,250.0,1000", C1, NULL), 0);
	assert_int_equal(njobs, 3);
	assert_int_equal(js[0].p->hz, 100);
	assert_int_equal(js[1].p->hz, 250);
	assert_string_equal(js[0].c.group, "thresh=100M/hz=1e2");
	done();
}

static void test_long_key_is_one_error(void **state)
{
	(void)state;
	static char arg[1200];
	memset(arg, 'a', 600);
	strcpy(arg + 600, "=1,2");
	refused(load("--set", arg, C1, NULL), "the key is too long");
	strcpy(arg + 600, "=1");
	refused(load("--set", arg, C1, NULL), "the key is too long");
	/* a short key with a long value list */
	strcpy(arg, "disk.bw_mbps=");
	for (size_t i = strlen(arg); i < 700; i += 3)
		memcpy(arg + i, "40,", 3);
	arg[700] = 0;
	refused(load("--set", arg, C1, NULL), "longer than 511 characters");
	/* just below the limit still parses, as a list of values */
	char err[600];
	memset(arg, 0, sizeof(arg));
	strcpy(arg, "hz=");
	for (int v = 10; strlen(arg) < SET_SWEEP_MAX - 8; v++)
		snprintf(arg + strlen(arg), sizeof(arg) - strlen(arg), "%s%d", v > 10 ? "," : "", v);
	assert_int_equal(set_sweep_check(arg, err, sizeof(err)), 0);
}

static void test_seed_repeat_does_not_wrap(void **state)
{
	(void)state;
	refused(load("-k", "current", "--seed", "18446744073709551615", "--repeat", "2", C1, NULL),
		"--seed 18446744073709551615 with --repeat 2");
	refused(load("-k", "current", "--seed", "18446744073709551610", "--repeat", "7", C1, NULL),
		"--repeat 7");
	assert_int_equal(load("-k", "current", "--seed", "18446744073709551614", "--repeat", "2", C1,
			      NULL), 0);
	assert_int_equal(njobs, 2);
	assert_true(js[1].seed == UINT64_MAX);
	assert_string_equal(arg_of(1, "--seed"), "18446744073709551615");
	done();
}

static void test_runtime_written_as_given(void **state)
{
	(void)state;
	static const char *const t[][2] = {
		{ "0.1", "0.1" }, { "300", "300" }, { "1e6", "1000000" }, { "0.3", "0.3" },
		{ "2.5", "2.5" }, { "1e-07", "1e-07" }, { "0.30000000000000004", "0.30000000000000004" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(load("-k", "current", "-t", t[i][0], C1, NULL), 0);
		assert_string_equal(arg_of(0, "-t"), t[i][1]);
		assert_true(strtod(arg_of(0, "-t"), NULL) == m.runtime);
		done();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_list),
		cmocka_unit_test(test_same_case_twice),
		cmocka_unit_test(test_cases_from_names_file_line),
		cmocka_unit_test(test_sweep_values_compared_by_value),
		cmocka_unit_test(test_long_key_is_one_error),
		cmocka_unit_test(test_seed_repeat_does_not_wrap),
		cmocka_unit_test(test_runtime_written_as_given),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
