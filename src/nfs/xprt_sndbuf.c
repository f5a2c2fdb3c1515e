#include "xprt_sndbuf.h"

int xprt_sndbuf_fits(const struct xprt_sndbuf *sb, uint64_t bytes)
{
	if (!sb->size)
		return 0;
	return sb->unsent == 0 || sb->unsent + bytes <= sb->size;
}

void xprt_sndbuf_queue(struct xprt_sndbuf *sb, uint64_t bytes)
{
	sb->unsent += bytes;
}

void xprt_sndbuf_sent(struct xprt_sndbuf *sb, uint64_t bytes)
{
	sb->unsent = sb->unsent > bytes ? sb->unsent - bytes : 0;
}
