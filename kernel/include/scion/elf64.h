/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The parts of the ELF64 object format (System V gABI) that the graft
 * loader reads (the file header, section headers, symbols and RELA
 * relocations) and that the program loader reads (the file header and
 * program headers), with the constants they check. Layouts are the on-disk
 * ones; the loader copies each record out of the file with memcpy
 * before using it, so no record needs to be aligned in the file, and it
 * reads them in the kernel's own byte order (the machine's e_machine,
 * byte order and relocation types are in arch/elf.h).
 */
#ifndef SCION_ELF64_H
#define SCION_ELF64_H

#include <stdint.h>

/* e_ident */
#define ELF_IDENT_SIZE		16
#define ELF_IDENT_CLASS		4
#define ELF_IDENT_DATA		5
#define ELF_IDENT_VERSION	6
#define ELF_CLASS_64		2
#define ELF_DATA_LSB		1	/* two's complement, little-endian */
#define ELF_DATA_MSB		2	/* two's complement, big-endian */
#define ELF_VERSION_CURRENT	1

#define ELF_TYPE_REL		1	/* relocatable object */
#define ELF_TYPE_EXEC		2	/* executable at fixed addresses */
#define ELF_TYPE_DYN		3	/* shared object, or a position-independent executable */

struct elf64_header {
	uint8_t ident[ELF_IDENT_SIZE];
	uint16_t type;
	uint16_t machine;
	uint32_t version;
	uint64_t entry;
	uint64_t phoff;
	uint64_t shoff;
	uint32_t flags;
	uint16_t ehsize;
	uint16_t phentsize;
	uint16_t phnum;
	uint16_t shentsize;
	uint16_t shnum;
	uint16_t shstrndx;
};

/* Section types */
#define SHT_NULL		0
#define SHT_PROGBITS		1
#define SHT_SYMTAB		2
#define SHT_STRTAB		3
#define SHT_RELA		4
#define SHT_NOTE		7
#define SHT_NOBITS		8
#define SHT_REL			9
#define SHT_GROUP		17
#define SHT_SYMTAB_SHNDX	18

/* Section flags */
#define SHF_WRITE		0x1u
#define SHF_ALLOC		0x2u
#define SHF_EXECINSTR		0x4u
#define SHF_TLS			0x400u

/* Special section indexes */
#define SHN_UNDEF		0
#define SHN_LORESERVE		0xff00u
#define SHN_ABS			0xfff1u
#define SHN_COMMON		0xfff2u
#define SHN_XINDEX		0xffffu

struct elf64_section {
	uint32_t name;
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
};

/* Symbol binding (st_info >> 4) and type (st_info & 0xf) */
#define STB_LOCAL		0
#define STB_GLOBAL		1
#define STB_WEAK		2
#define STT_NOTYPE		0
#define STT_OBJECT		1
#define STT_FUNC		2
#define STT_SECTION		3
#define STT_FILE		4
#define STT_COMMON		5
#define STT_TLS			6
#define STT_GNU_IFUNC		10

struct elf64_symbol {
	uint32_t name;
	uint8_t info;
	uint8_t other;
	uint16_t shndx;
	uint64_t value;
	uint64_t size;
};

#define ELF64_SYMBOL_BINDING(info)	((unsigned)(info) >> 4)
#define ELF64_SYMBOL_TYPE(info)		((unsigned)(info) & 0xfu)

struct elf64_rela {
	uint64_t offset;
	uint64_t info;
	int64_t addend;
};

#define ELF64_RELA_SYMBOL(info)		((uint32_t)((info) >> 32))
#define ELF64_RELA_TYPE(info)		((uint32_t)(info))

_Static_assert(sizeof(struct elf64_header) == 64, "ELF64 header layout");

/* Program headers: what a program loader maps. */
struct elf64_program {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};
_Static_assert(sizeof(struct elf64_program) == 56, "ELF64 program header layout");

#define PT_NULL			0
#define PT_LOAD			1
#define PT_DYNAMIC		2
#define PT_INTERP		3
#define PT_NOTE			4
#define PT_PHDR			6
#define PT_TLS			7
#define PT_GNU_STACK		0x6474e551u

#define PF_X			0x1u
#define PF_W			0x2u
#define PF_R			0x4u
_Static_assert(sizeof(struct elf64_section) == 64, "ELF64 section header layout");
_Static_assert(sizeof(struct elf64_symbol) == 24, "ELF64 symbol layout");
_Static_assert(sizeof(struct elf64_rela) == 24, "ELF64 RELA layout");

#endif
