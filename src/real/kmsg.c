#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "kmsg.h"

void kmsg_watch_start(struct kmsg_watch *w)
{
	w->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->fd >= 0 && lseek(w->fd, 0, SEEK_END) < 0) {
		close(w->fd);
		w->fd = -1;
	}
}

/* dev as a word: "loop1" in "dev loop1," but not in "loop10" or "xloop1" */
static int names_dev(const char *text, const char *dev)
{
	size_t n = strlen(dev);
	for (const char *p = text; (p = strstr(p, dev)); p += n)
		if ((p == text || !isalnum((unsigned char)p[-1])) && !isdigit((unsigned char)p[n]))
			return 1;
	return 0;
}

static int says_error(const char *text)
{
	for (const char *p = text; *p; p++)
		if (strncasecmp(p, "error", 5) == 0 || strncasecmp(p, "abort", 5) == 0 ||
		    strncasecmp(p, "lost async page write", 21) == 0)
			return 1;
	return 0;
}

int kmsg_record_is_error(const char *rec, const char *dev)
{
	const char *semi = strchr(rec, ';');
	if (!semi || !*dev)
		return 0;
	int level = atoi(rec) & 7;
	const char *text = semi + 1;
	return names_dev(text, dev) && (level <= 3 || says_error(text));
}

int kmsg_watch_errors(struct kmsg_watch *w, const char *dev, char *first, size_t n)
{
	char rec[8192];
	int count = 0;
	if (first && n)
		first[0] = 0;
	while (w->fd >= 0) {
		ssize_t r = read(w->fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;  /* records were overwritten before we read them */
		if (r <= 0)
			break;
		rec[r] = 0;
		char *nl = strchr(rec, '\n');
		if (nl)
			*nl = 0;
		if (kmsg_record_is_error(rec, dev)) {
			if (!count && first && n)
				snprintf(first, n, "%s", strchr(rec, ';') + 1);
			count++;
		}
	}
	return count;
}

void kmsg_watch_stop(struct kmsg_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
