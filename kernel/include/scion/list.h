/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Intrusive circular doubly linked lists. A list head is a node whose
 * next and prev point to itself when the list is empty. The lists carry
 * no lock: the structure that embeds the head says which lock guards it.
 */
#ifndef SCION_LIST_H
#define SCION_LIST_H

#include <scion/compiler.h>

struct list_node {
	struct list_node *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_node name = LIST_HEAD_INIT(name)

static inline void list_init(struct list_node *head)
{
	head->next = head;
	head->prev = head;
}

static inline bool list_empty(const struct list_node *head)
{
	return head->next == head;
}

static inline void list_insert_between(struct list_node *n,
				       struct list_node *prev,
				       struct list_node *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add_head(struct list_node *head, struct list_node *n)
{
	list_insert_between(n, head, head->next);
}

static inline void list_add_tail(struct list_node *head, struct list_node *n)
{
	list_insert_between(n, head->prev, head);
}

static inline void list_remove(struct list_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n;
	n->prev = n;
}

/* True when n is linked into some list (after list_init or list_remove it is not). */
static inline bool list_linked(const struct list_node *n)
{
	return n->next != n;
}

#define list_entry(node, type, member) container_of(node, type, member)
#define list_first(head, type, member) \
	(list_empty(head) ? NULL : list_entry((head)->next, type, member))

#define list_foreach(head, it) \
	for (struct list_node *it = (head)->next; it != (head); it = it->next)
#define list_foreach_safe(head, it, tmp) \
	for (struct list_node *it = (head)->next, *tmp = it->next; it != (head); \
	     it = tmp, tmp = it->next)

#endif
