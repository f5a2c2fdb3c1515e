/* See disk_wcache.h. */
#include "disk_wcache.h"

void disk_wcache_init(struct disk_wcache *w, double mb, double media_mbps, double link_mbps)
{
	w->media_ns = 4096.0 / (media_mbps * 1048576.0) * 1e9;
	w->link_ns = 4096.0 / (link_mbps * 1048576.0) * 1e9;
	w->cap_ns = mb * 256.0 * w->media_ns;
	w->owed_ns = 0;
	w->t = 0;
}

double disk_wcache_owed(struct disk_wcache *w, int64_t now)
{
	if (now < w->t)      /* time only moves forward; an earlier now drains nothing */
		return w->owed_ns;
	w->owed_ns -= (double)(now - w->t);
	if (w->owed_ns < 0)
		w->owed_ns = 0;
	w->t = now;
	return w->owed_ns;
}

double disk_wcache_write_ns(struct disk_wcache *w, int64_t now, double n, double seek_ns)
{
	double owed = disk_wcache_owed(w, now) + seek_ns, t = 0, end;
	if (owed > w->cap_ns) {              /* full: wait until it has drained to its size */
		t = owed - w->cap_ns;
		owed = w->cap_ns;
	}
	if (w->link_ns >= w->media_ns) {     /* platters as fast as the link: the cache only drains */
		t += n * w->link_ns;
		end = owed - n * (w->link_ns - w->media_ns);
		if (end < 0)
			end = 0;
	} else {
		/* pages sent at the link rate until the cache is full: each adds
		 * media_ns of work and drains link_ns of it meanwhile */
		double fit = (w->cap_ns - owed) / (w->media_ns - w->link_ns);
		if (n <= fit) {
			t += n * w->link_ns;
			end = owed + n * (w->media_ns - w->link_ns);
		} else {
			t += fit * w->link_ns + (n - fit) * w->media_ns;
			end = w->cap_ns;
		}
	}
	/* kept as of now: at now + t, when the transfer ends, `end` is owed */
	w->owed_ns = end + t;
	return t;
}
