/* Empty action lists: the probe fires and records nothing of its own. */
BEGIN
{
}

fbt::bcache_read:entry {}

END
/tid == 1/
{ ; ; }
