// flags: -n
fbt::bcache_read:entry { @[execname] = count(); } END { printa(@); }