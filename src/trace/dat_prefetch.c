/* Decompression of a trace.dat's chunks ahead of the reader.
 *
 * zstd is about half of what reading a trace for analysis costs and the
 * analysis is one thread, so a second thread decompresses while the caller
 * decodes.  Each CPU's stream holds at most one chunk ahead, beside the one
 * the caller is in: the thread fills first the stream the caller waits for,
 * then the one whose held chunk ends earliest in time (the timestamp of its
 * last page), as the merge by timestamp will need that one first.  A bound
 * on the bytes held ahead keeps a file of huge chunks from filling memory;
 * the stream the caller waits for is filled past it.  The end of a stream or
 * a damaged chunk is a state of the stream, handed to the caller in order
 * after the chunks before it, so errors come where the synchronous reader
 * gives them. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dat_prefetch.h"
#include "dat_io.h"
#include "dat_format.h"

#define AHEAD_BYTES (32u << 20)
#define MAX_CHUNK (1u << 28)

int dat_chunk_load(int fd, ZSTD_DCtx *dc, struct dat_stream *s, unsigned char **z, size_t *zcap,
		   struct dat_chunk_buf *b)
{
	unsigned char h[8];
	if (!s->chunks_left)
		return 0;
	if (s->off + 8 > s->end || pread_all(fd, h, 8, s->off))
		return -1;
	uint32_t zs = rd32(h), us = rd32(h + 4);
	if (s->off + 8 + zs > s->end || us % DAT_PAGE_SIZE || us > MAX_CHUNK)
		return -1;
	if (zs > *zcap) {
		unsigned char *q = realloc(*z, zs);
		if (!q)
			return -1;
		*z = q;
		*zcap = zs;
	}
	if (us > b->cap) {
		unsigned char *u = realloc(b->data, us);
		if (!u)
			return -1;
		b->data = u;
		b->cap = us;
	}
	if (pread_all(fd, *z, zs, s->off + 8))
		return -1;
	size_t got = ZSTD_decompressDCtx(dc, b->data, us, *z, zs);
	if (ZSTD_isError(got) || got != us)
		return -1;
	s->off += 8 + zs;
	s->chunks_left--;
	b->len = us;
	return 1;
}

struct pf_stream {
	struct dat_stream s;
	struct dat_chunk_buf ahead;   /* the thread's while !ready && !done */
	int ready;                    /* ahead holds the next chunk */
	int done, final;              /* no more chunks; final: 0 end, -1 damage */
	uint64_t horizon;             /* last page's timestamp of the newest chunk */
};

struct dat_prefetch {
	int fd;
	ZSTD_DCtx *dc;
	unsigned char *z;
	size_t zcap;
	struct pf_stream *st;
	int n;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, got;    /* to the thread: a slot or a wait; to the caller: a chunk */
	int want, stop;              /* the stream the caller waits for (-1: none) */
	size_t ahead_bytes;
};

/* The stream to fill next, -1 if none can be (called locked). */
static int pick(const struct dat_prefetch *p)
{
	if (p->want >= 0 && !p->st[p->want].ready && !p->st[p->want].done)
		return p->want;
	if (p->ahead_bytes >= AHEAD_BYTES)
		return -1;
	int best = -1;
	for (int i = 0; i < p->n; i++) {
		const struct pf_stream *s = &p->st[i];
		if (!s->ready && !s->done && (best < 0 || s->horizon < p->st[best].horizon))
			best = i;
	}
	return best;
}

static int all_done(const struct dat_prefetch *p)
{
	for (int i = 0; i < p->n; i++)
		if (!p->st[i].done)
			return 0;
	return 1;
}

static void *prefetch_main(void *arg)
{
	struct dat_prefetch *p = arg;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		int i = pick(p);
		if (i < 0) {
			if (all_done(p))
				break;
			pthread_cond_wait(&p->work, &p->mu);
			continue;
		}
		struct pf_stream *s = &p->st[i];
		pthread_mutex_unlock(&p->mu);
		int r = dat_chunk_load(p->fd, p->dc, &s->s, &p->z, &p->zcap, &s->ahead);
		uint64_t horizon = r == 1 && s->ahead.len >= DAT_PAGE_SIZE ?
			rd64(s->ahead.data + s->ahead.len - DAT_PAGE_SIZE) : s->horizon;
		pthread_mutex_lock(&p->mu);
		if (r == 1) {
			s->ready = 1;
			s->horizon = horizon;
			p->ahead_bytes += s->ahead.len;
		}
		if (r < 1 || !s->s.chunks_left) {
			s->done = 1;
			s->final = r < 0 ? -1 : 0;
		}
		pthread_cond_broadcast(&p->got);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct dat_prefetch *dat_prefetch_start(int fd, ZSTD_DCtx *dc, const struct dat_stream *streams, int n)
{
	struct dat_prefetch *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->st = calloc(n > 0 ? (size_t)n : 1, sizeof(*p->st));
	if (!p->st) {
		free(p);
		return NULL;
	}
	p->fd = fd;
	p->dc = dc;
	p->n = n;
	p->want = -1;
	for (int i = 0; i < n; i++)
		p->st[i].s = streams[i];
	if (pthread_mutex_init(&p->mu, NULL))
		goto no_mutex;
	if (pthread_cond_init(&p->work, NULL))
		goto no_work;
	if (pthread_cond_init(&p->got, NULL))
		goto no_got;
	/* signals keep going to the caller's threads, as before this one
	 * existed: it starts with all of them blocked */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int started = pthread_create(&p->thread, NULL, prefetch_main, p) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!started)
		goto no_thread;
	return p;
no_thread:
	pthread_cond_destroy(&p->got);
no_got:
	pthread_cond_destroy(&p->work);
no_work:
	pthread_mutex_destroy(&p->mu);
no_mutex:
	free(p->st);
	free(p);
	return NULL;
}

int dat_prefetch_take(struct dat_prefetch *p, int i, struct dat_chunk_buf *b)
{
	struct pf_stream *s = &p->st[i];
	int r;
	pthread_mutex_lock(&p->mu);
	while (!s->ready && !s->done) {
		p->want = i;
		pthread_cond_signal(&p->work);
		pthread_cond_wait(&p->got, &p->mu);
	}
	if (p->want == i)
		p->want = -1;
	if (s->ready) {
		struct dat_chunk_buf t = *b;
		*b = s->ahead;
		s->ahead = t;
		s->ready = 0;
		p->ahead_bytes -= b->len;
		pthread_cond_signal(&p->work);
		r = 1;
	} else {
		r = s->final;
		free(s->ahead.data);   /* the thread is done with this stream */
		s->ahead = (struct dat_chunk_buf){ 0 };
	}
	pthread_mutex_unlock(&p->mu);
	return r;
}

void dat_prefetch_stop(struct dat_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->got);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	for (int i = 0; i < p->n; i++)
		free(p->st[i].ahead.data);
	free(p->st);
	free(p->z);
	free(p);
}
