// A qemu-user TCG plugin: guest instructions executed per guest thread, with the thread's
// name (what the program gave it with pthread_setname_np: qemu-user passes it to the host
// thread). At exit it prints one line per thread: "insn: TID NAME COUNT".
// Built against the plugin API of the host's qemu (version 1: qemu 7.2 to 8.2); only the
// few declarations used are written here, so no qemu source is needed.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*vcpu_simple_cb)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, vcpu_udata_cb cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id, vcpu_simple_cb cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

enum { MAX_THREADS = 256 };
// Each vCPU (a guest thread in qemu-user) only touches its own slot: no lock.
static struct { uint64_t insns; long tid; int reported; } threads[MAX_THREADS];

static void on_tb_exec(unsigned int vcpu, void *n) {
    if (vcpu >= MAX_THREADS) return;
    if (threads[vcpu].tid == 0) threads[vcpu].tid = syscall(SYS_gettid);
    threads[vcpu].insns += (uint64_t)(uintptr_t)n;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void report(unsigned int vcpu) {
    char path[64], name[32] = "?", line[128];
    if (vcpu >= MAX_THREADS || threads[vcpu].reported || threads[vcpu].tid == 0) return;
    threads[vcpu].reported = 1;
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", threads[vcpu].tid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(name, sizeof name, f)) name[strcspn(name, "\n")] = 0;
        fclose(f);
    }
    for (char *c = name; *c; c++) if (*c == ' ') *c = '_';
    snprintf(line, sizeof line, "insn: %ld %s %llu\n", threads[vcpu].tid, name,
             (unsigned long long)threads[vcpu].insns);
    qemu_plugin_outs(line);
}

// A thread that ends reports as it goes (its name still readable); the rest at exit.
static void on_vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu) { (void)id; report(vcpu); }

static void on_exit_all(qemu_plugin_id_t id, void *p) {
    (void)id; (void)p;
    for (unsigned int i = 0; i < MAX_THREADS; i++) report(i);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    (void)info; (void)argc; (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_vcpu_exit_cb(id, on_vcpu_exit);
    qemu_plugin_register_atexit_cb(id, on_exit_all, NULL);
    return 0;
}
