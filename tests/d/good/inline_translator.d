/* inline constants and expressions (checked where used), a translator and xlate through . and ->. */
inline int LIMIT = 10 * 4;
inline string WHO = "scion";
inline int BIG = LIMIT + 2;
inline uint64_t NOWISH = timestamp / 1000;
struct task_in { int id; char name[8]; struct task_in *parent; };
struct taskinfo { int ti_id; int ti_parent; string ti_name; };
translator struct taskinfo < struct task_in *T > {
	ti_id = T->id;
	ti_parent = T->parent != NULL ? T->parent->id : -1;
	ti_name = stringof(T->name);
};
BEGIN
{
	trace(LIMIT);
	trace(WHO);
	trace(BIG);
	trace(NOWISH);
	trace(xlate <struct taskinfo *> ((struct task_in *)arg0)->ti_id);
	trace(xlate <struct taskinfo> ((struct task_in *)arg0).ti_parent);
	printf("%s %d\n", xlate <struct taskinfo *> ((struct task_in *)arg0)->ti_name, LIMIT);
}
