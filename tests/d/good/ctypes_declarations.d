/* C's types in D: struct, union, enum and typedef declarations, members
   through -> and ., bit-fields, arrays, sizeof, offsetof and enumerators. */
enum state { IDLE, RUNNING = 4, DONE };
struct point { int x, y; };
union value { long l; unsigned char bytes[8]; };
typedef struct node {
	struct point at;
	unsigned int flags : 3;
	int delta : 7;
	char name[16];
	union value v;
	struct node *next;
	enum state st;
} node_t;

BEGIN
{
	this->n = (node_t *)arg0;
	trace(this->n->at.y);
	trace(this->n->flags);
	trace(this->n->delta);
	trace(this->n->name);
	trace(this->n->v.bytes[arg1]);
	trace(this->n->next->next->st == DONE);
	trace((*this->n).at.x);
	trace(&this->n->name[2]);
	trace(sizeof(node_t));
	trace(sizeof(this->n->name));
	trace(offsetof(struct node, next));
	trace(RUNNING);
}
