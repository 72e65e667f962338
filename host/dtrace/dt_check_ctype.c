// SPDX-License-Identifier: BSD-2-Clause
/*
 * The semantic pass for C's types: struct and union members through ->
 * and ., *p of a struct pointer, &, sizeof, arrays, and the objects in
 * memory a store may write (typed args[] are dt_probe_args.c's).
 *
 * An object of a C type in memory is a DT_N_FIELD node: the object at
 * address left + value (left NULL: at the constant address value, a
 * kernel variable). Member access folds into it (p->a.b is one field of
 * p at a's offset plus b's), so the code generator emits one load with
 * an offset. A struct or union is never a value: it is only reached
 * through ., & and sizeof. An array used as a value becomes its address
 * (dt_decay): a pointer to its first element, or a string for a char
 * array, as dtrace prints char arrays.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/* n (->m, or .m) becomes the field name of the struct sou at addr + offset. */
static bool make_field(struct dt_checker *ck, struct dt_node *n, struct dt_node *addr,
		       uint64_t offset, struct dt_type sou, const char *op)
{
	if (!sou.size) {
		dt_error(ck->ctx, n->loc, D_OP_INCOMPLETE, "operator %s cannot be applied to "
			 "incomplete type %s", op, dt_type_str(ck->ctx, sou));
		return false;
	}
	struct dt_ctf_member m;
	int r = dt_ctf_member(ck->ctx, sou, n->str, &m);
	if (r == -1) {
		dt_error(ck->ctx, n->loc, D_TYPE_MEMBER, "%s is not a member of %s", n->str,
			 dt_type_str(ck->ctx, sou));
		return false;
	}
	if (r < 0) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "bit-field %s of %s crosses its storage "
			 "unit (a packed struct): it cannot be read", n->str, dt_type_str(ck->ctx, sou));
		return false;
	}
	n->kind = DT_N_FIELD;
	n->left = addr;
	n->value = offset + m.offset;
	n->type = m.type;
	n->bits = m.bits;
	n->shift = m.shift;
	if (m.type.kind == DT_TYPE_VOID) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "member %s of %s has a type D cannot read "
			 "(a float or a function)", n->str, dt_type_str(ck->ctx, sou));
		return false;
	}
	return true;
}

bool dt_check_arrow(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_type t = n->left->type;
	if (t.kind != DT_TYPE_PTR || t.levels != 1 || t.base_kind != DT_TYPE_SOU) {
		dt_error(ck->ctx, n->loc, D_OP_PTR, "operator -> must be applied to a pointer to a "
			 "struct or union, not %s", dt_type_str(ck->ctx, t));
		return false;
	}
	return make_field(ck, n, n->left, 0, dt_type_pointee(t), "->");
}

bool dt_check_dot(struct dt_checker *ck, struct dt_node *n)
{
	if (n->left->kind == DT_N_XLATE)
		return dt_xlate_member(ck, n, false);
	if (!dt_check_object(ck, n->left))
		return false;
	struct dt_node *l = n->left;
	if (l->type.kind != DT_TYPE_SOU || l->kind != DT_N_FIELD) {
		dt_error(ck->ctx, n->loc, D_OP_SOU, "operator . must be applied to a struct or union, "
			 "not %s", dt_type_str(ck->ctx, l->type));
		return false;
	}
	return make_field(ck, n, l->left, l->value, l->type, ".");
}

bool dt_check_deref_sou(struct dt_checker *ck, struct dt_node *n)
{
	(void)ck;
	n->kind = DT_N_FIELD;		/* *p: the struct at p, reached by . or & */
	n->value = 0;
	n->op = DT_OP_NONE;
	return true;
}

uint32_t dt_variable_array_count(struct dt_checker *ck, const struct dt_node *n)
{
	if (n->kind != DT_N_FIELD || n->type.kind != DT_TYPE_ARRAY || !n->left ||
	    (n->left->kind != DT_N_VAR && n->left->kind != DT_N_ARRAY) || !n->left->ref.var ||
	    !dt_var_by_reference(n->left->ref.var))
		return 0;
	uint32_t count = 0;
	dt_ctf_element(ck->ctx, n->type, &count);
	return count;
}

bool dt_is_memory_object(const struct dt_node *n)
{
	return n->kind == DT_N_FIELD || (n->kind == DT_N_UNARY && n->op == DT_OP_DEREF);
}

/*
 * A member, element or *p written by op (=, op=, ++, --), once checked
 * as an object: an integer or a pointer, not a bit-field, a struct, an
 * array or a float. Where it may be written is the kernel's question at
 * run time (alloca's scratch only: anywhere else is an invalid address).
 */
bool dt_check_store_target(struct dt_checker *ck, struct dt_node *n, const char *op)
{
	if (!dt_is_memory_object(n)) {
		dt_error(ck->ctx, n->loc, D_OP_LVAL, "operand of %s must be a variable, an "
			 "associative array element or an object in memory", op);
		return false;
	}
	struct dt_type t = n->type;
	if (n->kind == DT_N_FIELD && n->bits) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "operand of %s is a bit-field: D writes "
			 "whole integers and pointers only", op);
		return false;
	}
	if (t.kind != DT_TYPE_INT && t.kind != DT_TYPE_PTR) {
		dt_error(ck->ctx, n->loc, D_OP_LVAL, "operand of %s is a %s: D writes integers and "
			 "pointers in memory (copy other objects with bcopy( ))", op,
			 dt_type_str(ck->ctx, t));
		return false;
	}
	return true;
}

/* The type &object has: a pointer to it, or to an array's first element. */
static bool address_type(struct dt_checker *ck, struct dt_node *n, struct dt_type t,
			 struct dt_type *out)
{
	uint32_t count;
	if (t.kind == DT_TYPE_ARRAY)
		t = dt_ctf_element(ck->ctx, t, &count);
	if (t.kind == DT_TYPE_PTR && t.levels >= DT_MAX_PTR_LEVELS) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "more than %d levels of pointers are not "
			 "supported", DT_MAX_PTR_LEVELS);
		return false;
	}
	if (t.kind == DT_TYPE_ARRAY || t.kind == DT_TYPE_VOID) {
		*out = dt_type_pointer_to(dt_type_void);
		return true;
	}
	*out = dt_type_pointer_to(t);
	return true;
}

bool dt_check_addrof(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_object(ck, n->left))
		return false;
	struct dt_node *l = n->left;
	switch (l->kind) {
	case DT_N_FIELD:
		if (l->bits) {
			dt_error(ck->ctx, n->loc, D_ADDROF_BITFIELD, "cannot take address of "
				 "bit-field");
			return false;
		}
		return address_type(ck, n, l->type, &n->type);
	case DT_N_UNARY:
		if (l->op == DT_OP_DEREF) {	/* &*p is p */
			dt_node_replace(n, l->left);
			return true;
		}
		break;
	case DT_N_VAR: case DT_N_ARRAY: case DT_N_BUILTIN:
		dt_error(ck->ctx, n->loc, D_ADDROF_VAR, "cannot take address of dynamic variable");
		return false;
	default:
		break;
	}
	dt_error(ck->ctx, n->loc, D_ADDROF_LVAL, "unary & operand must be an lvalue");
	return false;
}

bool dt_check_sizeof(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_object(ck, n->left))
		return false;
	struct dt_node *l = n->left;
	struct dt_type t = l->type;
	if (l->kind == DT_N_FIELD && l->bits) {
		dt_error(ck->ctx, n->loc, D_SIZEOF_BITFIELD, "cannot apply sizeof to a bit-field");
		return false;
	}
	if (!(t.kind == DT_TYPE_INT || t.kind == DT_TYPE_PTR || t.kind == DT_TYPE_THREAD ||
	      ((t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY) && t.size))) {
		dt_error(ck->ctx, n->loc, D_SIZEOF_TYPE, "cannot apply sizeof to an expression of "
			 "type %s", dt_type_str(ck->ctx, t));
		return false;
	}
	n->kind = DT_N_INT;
	n->value = t.size;
	n->type = *dt_typedef_lookup("size_t", 6);
	n->left = NULL;
	return true;
}

bool dt_decay(struct dt_checker *ck, struct dt_node *n)
{
	if (n->type.kind == DT_TYPE_SOU) {
		dt_error(ck->ctx, n->loc, D_OP_SOU, "%s cannot be used as a value: read its members "
			 "(-> or .)", dt_type_str(ck->ctx, n->type));
		return false;
	}
	if (n->type.kind != DT_TYPE_ARRAY)
		return true;
	struct dt_node *object = dt_alloc(ck->ctx, sizeof(*object));
	*object = *n;
	struct dt_type address;
	if (dt_ctf_is_char_array(ck->ctx, n->type))
		address = dt_type_string;	/* as dtrace traces a char array: a string */
	else if (!address_type(ck, n, n->type, &address))
		return false;
	struct dt_node *next = n->next;	/* n may be an argument: its list goes on */
	memset(n, 0, sizeof(*n));
	n->next = next;
	n->kind = DT_N_UNARY;
	n->op = DT_OP_ADDROF;
	n->loc = object->loc;
	n->left = object;
	n->depth = object->depth + 1;
	n->type = address;
	return true;
}

bool dt_decay_to_pointer(struct dt_checker *ck, struct dt_node *n)
{
	if (!dt_check_object(ck, n))
		return false;
	if (n->type.kind != DT_TYPE_ARRAY)
		return dt_decay(ck, n);
	if (!dt_decay(ck, n))
		return false;
	return address_type(ck, n, n->left->type, &n->type);	/* a char array too */
}
