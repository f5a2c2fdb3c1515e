/* The zstd chunks of a trace.dat's CPUs, read and decompressed ahead by a
 * second thread while the caller decodes the events of the chunks it holds
 * (dat_read.c).  Each CPU's chunks come in file order whatever the timing,
 * so what the reader returns does not depend on the thread. */
#ifndef WBLAB_DAT_PREFETCH_H
#define WBLAB_DAT_PREFETCH_H
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

/* Where a CPU's next chunk header is, where its data ends, chunks to go. */
struct dat_stream {
	uint64_t off, end;
	uint32_t chunks_left;
};

/* A chunk buffer and the scratch for its compressed bytes. */
struct dat_chunk_buf {
	unsigned char *data;
	size_t len, cap;
};

/* Reads and decompresses s's next chunk into b (the compressed bytes go
 * through *z, grown as needed): 1, 0 when s has no more, -1 on damage. */
int dat_chunk_load(int fd, ZSTD_DCtx *dc, struct dat_stream *s, unsigned char **z, size_t *zcap,
		   struct dat_chunk_buf *b);

struct dat_prefetch;

/* Starts the thread over n streams (copied; dc is the thread's until
 * dat_prefetch_stop).  NULL if no thread could start: load synchronously. */
struct dat_prefetch *dat_prefetch_start(int fd, ZSTD_DCtx *dc, const struct dat_stream *streams, int n);
/* Stream i's next chunk, swapped into *b (the caller's old buffer becomes the
 * thread's): 1, 0 at the stream's end, -1 on damage; the end and damage are
 * kept: later calls return them again. */
int dat_prefetch_take(struct dat_prefetch *p, int i, struct dat_chunk_buf *b);
/* Stops and joins the thread, frees its buffers; p may be NULL. */
void dat_prefetch_stop(struct dat_prefetch *p);

#endif
