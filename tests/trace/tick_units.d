/* flags: -q */
/* tick-N in every unit spelling (and a bare N, which is hz); each counts its first three
   firings, so the totals do not depend on timing */
int ms, msec, us, usec, ns, nsec, hz, bare, s, sec;
tick-20ms /ms < 3/ { ms++; }
tick-20msec /msec < 3/ { msec++; }
tick-20000us /us < 3/ { us++; }
tick-20000usec /usec < 3/ { usec++; }
tick-20000000ns /ns < 3/ { ns++; }
tick-20000000nsec /nsec < 3/ { nsec++; }
tick-50hz /hz < 3/ { hz++; }
tick-50 /bare < 3/ { bare++; }
tick-1s { s++; }
tick-1sec { sec++; }
tick-1500ms
{
	printf("ms %d msec %d us %d usec %d ns %d nsec %d hz %d bare %d\n", ms, msec, us, usec,
	    ns, nsec, hz, bare);
	printf("s %d sec %d\n", s, sec);
	exit(0);
}
