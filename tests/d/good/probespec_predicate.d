// flags: -n
fbt::bcache_read:entry /arg0 > 10/