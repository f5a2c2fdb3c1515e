/* The write-back cache of the NFS server's fifo disk (nfs.server_wcache_mb).
 * A 2011 SATA drive with its write cache on takes data at the link's rate
 * while the cache has room and writes it to the platters at its media rate
 * behind the host's back.  ext4 with barrier=1 ends each journal commit with
 * a cache flush (jbd2 sends the commit record with WRITE_FLUSH_FUA), so an
 * fsync - an NFS COMMIT through nfsd_commit / vfs_fsync_range - waits there
 * for what the cache still owes, and ext4_sync_file does that wait holding
 * the file's i_mutex, which WRITEs to the file need too.  The cache is kept
 * as one number: the platter time it still owes, which drains at one ns per
 * ns.  Counters only; the arithmetic is checked by hand in
 * tests/unit/test_disk_wcache.c. */
#ifndef WBLAB_DISK_WCACHE_H
#define WBLAB_DISK_WCACHE_H
#include <stdint.h>

struct disk_wcache {
	double cap_ns;     /* the cache's size, in platter time (size / media rate) */
	double media_ns;   /* platter time per page */
	double link_ns;    /* link (host to drive) time per page */
	double owed_ns;    /* platter time owed as of t (with a transfer in flight: its end's, plus its length) */
	int64_t t;         /* ns */
};

/* mb of cache in front of platters writing media_mbps, behind a link of link_mbps (MiB/s) */
void disk_wcache_init(struct disk_wcache *w, double mb, double media_mbps, double link_mbps);
/* platter time still owed at now (the cache drains meanwhile) */
double disk_wcache_owed(struct disk_wcache *w, int64_t now);
/* The host's time to write n pages from now, seek_ns of head movement first
 * (platter time, owed like data): it waits for room while the cache is
 * full, then sends at the link rate while the cache has room and at the
 * media rate once it is full. */
double disk_wcache_write_ns(struct disk_wcache *w, int64_t now, double n, double seek_ns);

#endif
