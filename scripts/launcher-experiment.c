// scripts/launcher-experiment.c: what each part of a command's own
// confinement costs when the rest is done once, by a launcher already
// confined (docs/benchmarks.md, "Start-up, phase by phase"). Not part of
// automode: a measurement for the design of a per-session launcher.
//
//   scripts/bench.sh --launcher [ROUNDS]
//   (cc -O2 -o /tmp/launcher scripts/launcher-experiment.c && /tmp/launcher 300)
//
// A child (the launcher) makes a user and mount namespace, covers /root,
// installs a seccomp filter as long as automode's and builds a Landlock
// ruleset, once. Then, interleaved with a plain fork and exec of
// `bash -c true` from the parent, it starts the same command four ways:
// with Landlock only; in a mount namespace of its own; in a PID and mount
// namespace of its own (with the PID namespace's first process); and with
// that namespace's /proc mounted, as automode does; and joining a PID and
// mount namespace with its /proc that was made ahead, off the clock (as a
// session's filter could make the next command's between commands).
// Medians, in µs.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static char *argv_[]={"bash","-c","true",NULL};
static char *envp_[]={"PATH=/usr/bin:/bin","LANG=C.UTF-8",NULL};
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static int rs_fd=-1;
// As automode starts a command in a PID namespace of its own: a child
// unshares the namespaces, starts the namespace's first process (which
// outlives the command) and the command, both as the launcher's children
// (CLONE_PARENT), and exits; the launcher times the command to its end.
// The namespaces' first process: reap, and end once no other process is
// left in the namespace (looked at every 100 ms), as automode's; never
// later than 5 s.
static void first_process(void){
  int seen=0,idle=0;
  for(int look=0;look<50;look++){
    while(waitpid(-1,NULL,WNOHANG)>0);
    if(kill(-1,0)==0) seen=1;
    else if(++idle>20||seen) _exit(0);
    usleep(100000);
  }
  _exit(0);
}
// A PID and mount namespace made ahead, with its /proc: its first
// process's namespaces, held open (pid, mnt); off the clock.
static void make_slot(int ns[2]){
  int ready[2], told[2];
  if(pipe(ready)||pipe(told)) exit(1);
  pid_t x=fork();
  if(x==0){
    if(unshare(CLONE_NEWNS|CLONE_NEWPID)) _exit(97);
    pid_t init=syscall(SYS_clone,CLONE_PARENT|SIGCHLD,0,0,0,0);
    if(init==0){
      if(mount("proc","/proc","proc",MS_NOSUID|MS_NODEV|MS_NOEXEC,NULL)) _exit(98);
      if(write(ready[1],"r",1)!=1) _exit(99);
      first_process();
    }
    if(write(told[1],&init,sizeof init)!=sizeof init) _exit(89);
    _exit(0);
  }
  close(ready[1]); close(told[1]);
  int st; waitpid(x,&st,0);
  pid_t init; char c;
  if(read(told[0],&init,sizeof init)!=sizeof init||read(ready[0],&c,1)!=1){fprintf(stderr,"no slot\n"); exit(1);}
  close(ready[0]); close(told[0]);
  char path[64];
  snprintf(path,64,"/proc/%d/ns/pid",init); ns[0]=open(path,O_RDONLY|O_CLOEXEC);
  snprintf(path,64,"/proc/%d/ns/mnt",init); ns[1]=open(path,O_RDONLY|O_CLOEXEC);
  if(ns[0]<0||ns[1]<0){perror("slot");exit(1);}
}
static double run(int mode){
  int pids[2], ns[2]={-1,-1};
  if(pipe(pids)) exit(1);
  if(mode==5) make_slot(ns);
  double t0=now();
  pid_t p=fork();
  if(p==0){
    if(mode==5){
      // Join the namespaces made ahead; the command is their second
      // process, the launcher's child.
      if(setns(ns[1],CLONE_NEWNS)||setns(ns[0],CLONE_NEWPID)) _exit(88);
      pid_t c=syscall(SYS_clone,CLONE_PARENT|SIGCHLD,0,0,0,0);
      if(c==0){
        if(syscall(SYS_landlock_restrict_self,rs_fd,0)) _exit(94);
        execve("/usr/bin/bash",argv_,envp_); _exit(92);
      }
      if(write(pids[1],&c,sizeof c)!=sizeof c) _exit(89);
      _exit(0);
    }
    if(mode==1||mode==4){
      if(unshare(CLONE_NEWNS|CLONE_NEWPID)) _exit(90);
      pid_t init=syscall(SYS_clone,CLONE_PARENT|SIGCHLD,0,0,0,0);
      if(init==0) first_process();
      pid_t c=syscall(SYS_clone,CLONE_PARENT|SIGCHLD,0,0,0,0);
      if(c==0){
        if(mode==1&&mount("proc","/proc","proc",MS_NOSUID|MS_NODEV|MS_NOEXEC,NULL)) _exit(91);
        if(syscall(SYS_landlock_restrict_self,rs_fd,0)) _exit(94);
        execve("/usr/bin/bash",argv_,envp_); _exit(92);
      }
      if(write(pids[1],&c,sizeof c)!=sizeof c) _exit(89);
      _exit(0);
    }
    if(mode==3&&unshare(CLONE_NEWNS)) _exit(96);
    if(mode!=0&&syscall(SYS_landlock_restrict_self,rs_fd,0)) _exit(95);
    execve("/usr/bin/bash",argv_,envp_); _exit(93);
  }
  close(pids[1]);
  int st; waitpid(p,&st,0);
  pid_t cmd=p;
  if(mode==1||mode==4||mode==5){
    if(read(pids[0],&cmd,sizeof cmd)!=sizeof cmd) {fprintf(stderr,"mode %d: no command\n",mode); exit(1);}
    if(waitpid(cmd,&st,0)<0) {perror("waitpid"); exit(1);}
  }
  double t=now()-t0;
  close(pids[0]);
  if(ns[0]>=0){close(ns[0]); close(ns[1]);}
  if(!WIFEXITED(st)||WEXITSTATUS(st)) {fprintf(stderr,"mode %d failed %d\n",mode,WEXITSTATUS(st)); exit(1);}
  // The namespace's first process ends after the command (off the clock).
  while(waitpid(-1,NULL,WNOHANG)>0);
  return t;
}
static void confine(void){
  uid_t u=getuid(); gid_t g=getgid();
  if(unshare(CLONE_NEWUSER|CLONE_NEWNS)){perror("unshare");exit(1);}
  char m[64]; int fd;
  fd=open("/proc/self/setgroups",O_WRONLY); if(write(fd,"deny",4)<0) exit(1); close(fd);
  snprintf(m,64,"0 %d 1",u); fd=open("/proc/self/uid_map",O_WRONLY); if(write(fd,m,strlen(m))<0) exit(1); close(fd);
  snprintf(m,64,"0 %d 1",g); fd=open("/proc/self/gid_map",O_WRONLY); if(write(fd,m,strlen(m))<0) exit(1); close(fd);
  mount(NULL,"/",NULL,MS_REC|MS_PRIVATE,NULL);
  mount("none","/root","tmpfs",MS_RDONLY,"size=4k,mode=0");
  // seccomp: a filter as long as automode's (188 instructions: the call's
  // number compared 186 times, then allowed). Inherited, its length
  // hardly matters: the kernel's action cache lets allowed calls skip it.
  static struct sock_filter f[188]; int len=0;
  f[len++]=(struct sock_filter)BPF_STMT(BPF_LD|BPF_W|BPF_ABS,0);
  while(len<187) f[len++]=(struct sock_filter)BPF_JUMP(BPF_JMP|BPF_JEQ|BPF_K,100000+len,0,0);
  f[len++]=(struct sock_filter)BPF_STMT(BPF_RET|BPF_K,SECCOMP_RET_ALLOW);
  struct sock_fprog prog={len,f};
  prctl(PR_SET_NO_NEW_PRIVS,1,0,0,0);
  if(syscall(SYS_seccomp,SECCOMP_SET_MODE_FILTER,SECCOMP_FILTER_FLAG_SPEC_ALLOW,&prog)){perror("seccomp");exit(1);}
  // Landlock: the ruleset built once; each command restricts itself with
  // it after mounting its /proc (a process under Landlock cannot mount).
  struct landlock_ruleset_attr ra={.handled_access_fs=(1ULL<<13)-1};
  rs_fd=syscall(SYS_landlock_create_ruleset,&ra,sizeof ra,0);
  struct landlock_path_beneath_attr pb={.allowed_access=(1ULL<<13)-1};
  pb.parent_fd=open("/",O_PATH|O_CLOEXEC);
  if(rs_fd<0||syscall(SYS_landlock_add_rule,rs_fd,LANDLOCK_RULE_PATH_BENEATH,&pb,0)){perror("landlock");exit(1);}
}
int main(int argc,char**argv){
  int n=argc>1?atoi(argv[1]):300;
  double *a=malloc(n*sizeof(double)),*b=malloc(n*sizeof(double)),*d=malloc(n*sizeof(double)),*e=malloc(n*sizeof(double)),*h=malloc(n*sizeof(double)),*k=malloc(n*sizeof(double));
  // The launcher: a child that confines itself once, then starts a command
  // each time it is asked, and answers how long that took.
  int ask[2],answer[2];
  if(pipe(ask)||pipe(answer)) return 1;
  if(fork()==0){
    close(ask[1]); close(answer[0]);
    confine();
    char c; double t;
    while(read(ask[0],&c,1)==1){t=run(c-'0'); if(write(answer[1],&t,sizeof t)!=sizeof t) _exit(1);}
    _exit(0);
  }
  close(ask[0]); close(answer[1]);
  // Interleaved: a plain run here, a launcher run there, in turn.
  for(int i=0;i<n;i++){
    a[i]=run(0);
    if(write(ask[1],"1",1)!=1||read(answer[0],&b[i],sizeof b[i])!=sizeof b[i]) return 1;
    if(write(ask[1],"2",1)!=1||read(answer[0],&d[i],sizeof d[i])!=sizeof d[i]) return 1;
    if(write(ask[1],"3",1)!=1||read(answer[0],&e[i],sizeof e[i])!=sizeof e[i]) return 1;
    if(write(ask[1],"4",1)!=1||read(answer[0],&h[i],sizeof h[i])!=sizeof h[i]) return 1;
    if(write(ask[1],"5",1)!=1||read(answer[0],&k[i],sizeof k[i])!=sizeof k[i]) return 1;
  }
  close(ask[1]); wait(NULL);
  qsort(a,n,sizeof(double),cmp); qsort(b,n,sizeof(double),cmp); qsort(d,n,sizeof(double),cmp); qsort(e,n,sizeof(double),cmp); qsort(h,n,sizeof(double),cmp); qsort(k,n,sizeof(double),cmp);
  printf("plain fork and exec of bash -c true:       %5.0f\nfrom the launcher, PID and mount ns, /proc: %5.0f (+%.0f)\n",a[n/2],b[n/2],b[n/2]-a[n/2]);
  printf("from the launcher, Landlock only:           %5.0f (+%.0f)\n",d[n/2],d[n/2]-a[n/2]);
  printf("from the launcher, a mount ns of its own:   %5.0f (+%.0f)\n",e[n/2],e[n/2]-a[n/2]);
  printf("from the launcher, PID and mount ns:        %5.0f (+%.0f)\n",h[n/2],h[n/2]-a[n/2]);
  printf("joining PID and mount ns made ahead, /proc: %5.0f (+%.0f)\n",k[n/2],k[n/2]-a[n/2]);
  return 0;
}
