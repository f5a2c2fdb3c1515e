#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "machine.h"
#include "fileio.h"

int machine_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

uint64_t machine_mem_mb(void)
{
	char buf[8192];
	unsigned long long kb = 0;
	const char *p;
	if (file_read("/proc/meminfo", buf, sizeof(buf)) == 0 && (p = strstr(buf, "MemTotal:")))
		sscanf(p + 9, "%llu", &kb);
	return kb / 1024;
}

int machine_match_case(struct wb_case *c, char *err, size_t errlen)
{
	int cpus = machine_cpus();
	uint64_t mem = machine_mem_mb();
	int cpus_bad = c->cpus && c->cpus != cpus;
	double diff = c->mem_mb ? ((double)c->mem_mb - (double)mem) / (double)mem : 0;
	int mem_bad = diff > 0.03 || diff < -0.03;
	if (cpus_bad || mem_bad) {
		snprintf(err, errlen,
			 "case '%s' wants %s%s%s but this machine has %dp and %lluM "
			 "(write '*' for CPUS and MEM to use what it has); nothing was changed",
			 c->name, cpus_bad ? "a different CPU count" : "",
			 cpus_bad && mem_bad ? " and " : "", mem_bad ? "a different memory size" : "",
			 cpus, (unsigned long long)mem);
		return -1;
	}
	case_fill(c, cpus, mem);
	return 0;
}
