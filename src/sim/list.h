/* Intrusive circular doubly-linked list, as the kernel keeps inode lists.
 * "Head" insertion is list_add; the tail (list_last) is where writeback
 * dispatches, matching fs-writeback's b_dirty/b_io/b_more_io conventions. */
#ifndef WBLAB_LIST_H
#define WBLAB_LIST_H
#include <stddef.h>

struct list_node { struct list_node *next, *prev; };

static inline void list_init(struct list_node *h) { h->next = h->prev = h; }
static inline int list_empty(const struct list_node *h) { return h->next == h; }

static inline void list_insert(struct list_node *n, struct list_node *prev, struct list_node *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* add at the head (newest end) */
static inline void list_add(struct list_node *n, struct list_node *h) { list_insert(n, h, h->next); }
static inline void list_add_tail(struct list_node *n, struct list_node *h) { list_insert(n, h->prev, h); }

static inline void list_del_init(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	list_init(n);
}

static inline void list_move(struct list_node *n, struct list_node *h)
{
	list_del_init(n);
	list_add(n, h);
}

/* Moves all of `from` onto the head of `to`, keeping their order. */
static inline void list_splice_init(struct list_node *from, struct list_node *to)
{
	if (list_empty(from))
		return;
	struct list_node *first = from->next, *last = from->prev, *at = to->next;
	first->prev = to;
	to->next = first;
	last->next = at;
	at->prev = last;
	list_init(from);
}

#define list_entry(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define list_last(h) ((h)->prev)

#endif
