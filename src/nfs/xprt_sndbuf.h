/* The client socket's send buffer as the RPC iostats see it (net/sunrpc
 * xprt_transmit / xs_tcp_send_request): a request is "transmitted" (its
 * rq_xtime, where mountstats' queue time ends and RTT begins) once the whole
 * request has been copied into the TCP send buffer, not when its bytes reach
 * the wire.  One request is copied at a time (the transport lock), in order;
 * one that does not fit waits for the wire to drain the buffer.  Counted per
 * request: bytes leave the buffer when the request is fully on the wire. */
#ifndef WBLAB_XPRT_SNDBUF_H
#define WBLAB_XPRT_SNDBUF_H
#include <stdint.h>

struct xprt_sndbuf {
	uint64_t size;     /* bytes (sk_sndbuf); 0 = none: a request is transmitted as it goes on the wire */
	uint64_t unsent;   /* bytes copied in and not yet fully on the wire */
};

/* may a request of `bytes` be copied in now?  An empty buffer takes any
 * request (a large one is copied as the wire drains it). */
int xprt_sndbuf_fits(const struct xprt_sndbuf *sb, uint64_t bytes);
void xprt_sndbuf_queue(struct xprt_sndbuf *sb, uint64_t bytes);
/* the request's last byte went on the wire */
void xprt_sndbuf_sent(struct xprt_sndbuf *sb, uint64_t bytes);

#endif
