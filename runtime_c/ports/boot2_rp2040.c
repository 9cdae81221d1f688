/* The RP2040's flash second stage (boot2): the first 256 bytes of flash, which the bootrom copies to SRAM at
 * 0x20041F00 and runs once their CRC32 matches (RP2040 Datasheet 2.8.1.3 "Flash second stage", 2.8.1.3.1
 * "Checksum"). It runs from SRAM because the SSI cannot be reconfigured while code is fetched through it.
 *
 * It sets the SSI (4.10 "SSI"; the DW_apb_ssi at XIP_SSI_BASE 0x18000000) up for execute-in-place with the serial
 * 03h read every SPI NOR flash answers (the W25Q16JV on the Pico among them): standard SPI frame, 32-bit data
 * frames, EEPROM-read transfer mode (TMOD 3: send the command and address, then read), an 8-bit instruction 03h
 * followed by a 24-bit address sent in standard mode (SPI_CTRLR0: INST_L 2, ADDR_L 6 nibbles, TRANS_TYPE 0, no
 * wait cycles), one data frame per XIP access (CTRLR1.NDF 0). SCK = clk_sys / 4 (BAUDR): 31.25 MHz once the
 * board's set-up runs clk_sys at 125 MHz, under the 50 MHz a 03h read allows. Then it points VTOR at the image's
 * vector table (flash + 0x100: 256-byte aligned, as the M0+'s VTOR needs), loads the stack pointer from its first
 * word and jumps to its reset vector, as the SDK's second stages do when the bootrom has called them.
 *
 * Thumb-1 assembly, position independent (literals read relative to the pc): it is linked at 0x10000000 and runs
 * at 0x20041F00. Its 252 bytes end with a zero word that firmware_gen/target/rp2040_boot2.py replaces by the CRC
 * after linking. */

#define FG_STRINGIFY(x) #x
#define FG_STR(x) FG_STRINGIFY(x)

#define SSI_CTRLR0 0x00  /* DW_apb_ssi register offsets (4.10 "SSI", list of registers) */
#define SSI_CTRLR1 0x04
#define SSI_SSIENR 0x08
#define SSI_BAUDR 0x14
#define SSI_CLOCK_DIVIDER 4
/* CTRLR0: SPI_FRF (bits 22:21) 0 = standard SPI, DFS_32 (bits 20:16) 31 = 32-bit frames, TMOD (bits 9:8) 3 =
 * EEPROM read. */
#define SSI_CTRLR0_XIP ((31 << 16) | (3 << 8))
/* SPI_CTRLR0 (offset 0xF4): XIP_CMD (bits 31:24) 0x03, INST_L (bits 9:8) 2 = 8-bit instruction, ADDR_L (bits 5:2)
 * 6 = 24-bit address, TRANS_TYPE (bits 1:0) 0 = instruction and address in standard SPI. */
#define SSI_SPI_CTRLR0_XIP ((0x03 << 24) | (2 << 8) | (6 << 2))

__asm__(
    ".pushsection .boot2, \"ax\", %progbits\n"
    ".syntax unified\n"
    ".thumb\n"
    ".balign 4\n"
    ".type fg_boot2, %function\n"
    ".thumb_func\n"
    "fg_boot2:\n"
    "    ldr r3, .Lboot2_ssi_base\n"
    "    movs r1, #0\n"
    "    str r1, [r3, #" FG_STR(SSI_SSIENR) "]\n"  /* disabled: the SSI takes a configuration only then */
    "    movs r1, #" FG_STR(SSI_CLOCK_DIVIDER) "\n"
    "    str r1, [r3, #" FG_STR(SSI_BAUDR) "]\n"
    "    ldr r1, .Lboot2_ctrlr0\n"
    "    str r1, [r3, #" FG_STR(SSI_CTRLR0) "]\n"
    "    ldr r1, .Lboot2_spi_ctrlr0\n"
    "    ldr r0, .Lboot2_spi_ctrlr0_address\n"  /* 0xF4 is beyond STR's 124-byte immediate offset */
    "    str r1, [r0]\n"
    "    movs r1, #0\n"
    "    str r1, [r3, #" FG_STR(SSI_CTRLR1) "]\n"
    "    movs r1, #1\n"
    "    str r1, [r3, #" FG_STR(SSI_SSIENR) "]\n"
    "    ldr r0, .Lboot2_vectors\n"
    "    ldr r1, .Lboot2_vtor\n"
    "    str r0, [r1]\n"
    "    ldmia r0, {r0, r1}\n"  /* initial stack pointer, reset vector */
    "    msr msp, r0\n"
    "    bx r1\n"
    ".balign 4\n"
    ".Lboot2_ssi_base: .word 0x18000000\n"
    ".Lboot2_ctrlr0: .word " FG_STR(SSI_CTRLR0_XIP) "\n"
    ".Lboot2_spi_ctrlr0: .word " FG_STR(SSI_SPI_CTRLR0_XIP) "\n"
    ".Lboot2_spi_ctrlr0_address: .word 0x180000F4\n"
    ".Lboot2_vectors: .word 0x10000100\n"  /* XIP_BASE + 0x100 */
    ".Lboot2_vtor: .word 0xE000ED08\n"     /* the M0+'s VTOR (2.4.8 "List of registers", M0PLUS: VTOR) */
    ".size fg_boot2, . - fg_boot2\n"
    ".org 252\n"
    ".word 0\n"  /* the CRC32 of the 252 bytes above, written after linking */
    ".popsection\n");
