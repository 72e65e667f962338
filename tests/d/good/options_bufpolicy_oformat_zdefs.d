/* Options the consumer and the kernel act on: bufpolicy, oformat, zdefs, aggrate. */
#pragma D option bufpolicy=ring
#pragma D option oformat=json
#pragma D option zdefs
#pragma D option aggrate=2hz
nosuch:::probe
{
	trace(1);
}
