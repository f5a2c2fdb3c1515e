#include <string.h>
#include "trace_emit.h"
#include "../analysis/plot.h"
#include "../analysis/stats.h"

void ev_begin(struct sim *s, struct sthread *th, struct wb_event *e, enum wb_event_type t,
	      const struct bdi *bdi)
{
	e->type = t;
	e->present = 0;
	e->ts_us = s->now / 1000;
	if (th) {
		memcpy(e->comm, th->comm, sizeof(th->comm));
		e->pid = th->pid;
		e->cpu = th->cpu;
	} else {
		static const char idle[16] = "<idle>";   /* NUL-padded, as a thread's comm */
		memcpy(e->comm, idle, sizeof(idle));
		e->pid = 0;
		e->cpu = s->irq_cpu;
	}
	if (bdi)
		memcpy(e->bdi, bdi->name, sizeof(bdi->name));
	else
		e->bdi[0] = 0;
	e->reason[0] = 0;
}

void ev_emit(struct sim *s, struct wb_event *e)
{
	/* an event the modelled kernel does not print (Wu's NFS events under
	 * 6.x) is not in the trace, so the stats and graphs do not see it
	 * either: they are what the trace says */
	if (!(s->era_events >> e->type & 1))
		return;
	s->trace_events++;
	if (s->dat)
		dat_write_event(s->dat, e);
	else if (s->trace)
		trace_write_event(s->trace, e);
	stats_feed(s->stats, e);
	if (s->plot)
		plot_run_feed(s->plot, e);  /* out of memory only thins the graphs */
}
