// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF ids (scion/dif.h) of D's built-in variables, curthread members
 * and subroutines, as the code generator emits them. The switches have
 * no default where the D enum is complete, so the compiler names any id
 * added to one side and not the other.
 */
#include "dt_cg.h"

uint8_t dt_cg_builtin_var(enum dt_builtin_id id)
{
	switch (id) {
	case DT_BV_TIMESTAMP: return DIF_VAR_TIMESTAMP;
	case DT_BV_VTIMESTAMP: return DIF_VAR_VTIMESTAMP;
	case DT_BV_WALLTIMESTAMP: return DIF_VAR_WALLTIMESTAMP;
	case DT_BV_CPU: return DIF_VAR_CPU;
	case DT_BV_TID: return DIF_VAR_TID;
	case DT_BV_PID: return DIF_VAR_PID;
	case DT_BV_EXECNAME: return DIF_VAR_EXECNAME;
	case DT_BV_PROBEPROV: return DIF_VAR_PROBEPROV;
	case DT_BV_PROBEMOD: return DIF_VAR_PROBEMOD;
	case DT_BV_PROBEFUNC: return DIF_VAR_PROBEFUNC;
	case DT_BV_PROBENAME: return DIF_VAR_PROBENAME;
	case DT_BV_EPID: return DIF_VAR_EPID;
	case DT_BV_ID: return DIF_VAR_ID;
	case DT_BV_CURTHREAD: return DIF_VAR_CURTHREAD;
	case DT_BV_ARG0: return DIF_VAR_ARG0;
	case DT_BV_ARG1: return DIF_VAR_ARG1;
	case DT_BV_ARG2: return DIF_VAR_ARG2;
	case DT_BV_ARG3: return DIF_VAR_ARG3;
	case DT_BV_ARG4: return DIF_VAR_ARG4;
	case DT_BV_ARG5: return DIF_VAR_ARG5;
	case DT_BV_ARG6: return DIF_VAR_ARG6;
	case DT_BV_ARG7: return DIF_VAR_ARG7;
	case DT_BV_ARG8: return DIF_VAR_ARG8;
	case DT_BV_ARG9: return DIF_VAR_ARG9;
	case DT_BV_CALLER: return DIF_VAR_CALLER;
	case DT_BV_PPID: return DIF_VAR_PPID;
	case DT_BV_UID: return DIF_VAR_UID;
	case DT_BV_ERRNO: return DIF_VAR_ERRNO;
	case DT_BV_PS_PID: return DIF_VAR_PS_PID;
	case DT_BV_PS_PPID: return DIF_VAR_PS_PPID;
	case DT_BV_PS_FNAME: return DIF_VAR_PS_FNAME;
	case DT_BV_PS_PSARGS: return DIF_VAR_PS_PSARGS;
	case DT_BV_STACKDEPTH: return DIF_VAR_STACKDEPTH;
	case DT_BUILTIN_COUNT: break;
	}
	return DIF_VAR_LIMIT;
}

uint8_t dt_cg_member_var(enum dt_member_id id)
{
	switch (id) {
	case DT_MEMBER_TID: return DIF_VAR_TID;
	case DT_MEMBER_NAME: return DIF_VAR_EXECNAME;
	case DT_MEMBER_AFFINITY: return DIF_VAR_THREAD_AFFINITY;
	case DT_MEMBER_TICKS_RUN: return DIF_VAR_THREAD_TICKS_RUN;
	case DT_MEMBER_SWITCHES_IN: return DIF_VAR_THREAD_SWITCHES_IN;
	case DT_MEMBER_COUNT: break;
	}
	return DIF_VAR_LIMIT;
}

uint8_t dt_cg_subroutine(enum dt_func_id id)
{
	switch (id) {
	case DT_F_SPECULATION: return DIF_SUBR_SPECULATION;
	case DT_F_STRLEN: return DIF_SUBR_STRLEN;
	case DT_F_STRJOIN: return DIF_SUBR_STRJOIN;
	case DT_F_SUBSTR: return DIF_SUBR_SUBSTR;
	case DT_F_INDEX: return DIF_SUBR_INDEX;
	case DT_F_LLTOSTR: return DIF_SUBR_LLTOSTR;
	case DT_F_BASENAME: return DIF_SUBR_BASENAME;
	case DT_F_DIRNAME: return DIF_SUBR_DIRNAME;
	case DT_F_RAND: return DIF_SUBR_RAND;
	case DT_F_STRSTR: return DIF_SUBR_STRSTR;
	case DT_F_STRCHR: return DIF_SUBR_STRCHR;
	case DT_F_STRRCHR: return DIF_SUBR_STRRCHR;
	case DT_F_RINDEX: return DIF_SUBR_RINDEX;
	case DT_F_STRTOK: return DIF_SUBR_STRTOK;
	case DT_F_COPYIN: return DIF_SUBR_COPYIN;
	case DT_F_COPYINSTR: return DIF_SUBR_COPYINSTR;
	case DT_F_ALLOCA: return DIF_SUBR_ALLOCA;
	case DT_F_BCOPY: return DIF_SUBR_BCOPY;
	case DT_F_COPYINTO: return DIF_SUBR_COPYINTO;
	case DT_F_TOUPPER: return DIF_SUBR_TOUPPER;
	case DT_F_TOLOWER: return DIF_SUBR_TOLOWER;
	case DT_F_STRTOLL: return DIF_SUBR_STRTOLL;
	case DT_F_HTONS: return DIF_SUBR_HTONS;
	case DT_F_HTONL: return DIF_SUBR_HTONL;
	case DT_F_HTONLL: return DIF_SUBR_HTONLL;
	case DT_F_NTOHS: return DIF_SUBR_NTOHS;
	case DT_F_NTOHL: return DIF_SUBR_NTOHL;
	case DT_F_NTOHLL: return DIF_SUBR_NTOHLL;
	case DT_F_CLEANPATH: return DIF_SUBR_CLEANPATH;
	default: return DIF_SUBR_LIMIT;
	}
}
