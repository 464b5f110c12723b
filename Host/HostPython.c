/*
** HostPython.c: what the commands that run a Python program (trace-python,
** script) share: finding the CPython modules built next to the command in
** a build tree, and the lines their bootstraps start with to put the
** program's sys.path and PYTHONPATH back.
**
** Zone: hosted (Host/, the process's services): libc, POSIX.  Linux only
** (the modules are built for Linux CPython); called by Cli/CmdTracePython.c
** and Outputs/Script/CmdScript.c.
*/
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Host/Host.h"

const char zHostPythonRestorePath[] =
"def _tracestore_restore_path():\n"
"    import os, sys\n"
"    e = os.environ\n"
"    if 'TRACESTORE_PYTHONPATH' in e:\n"
"        old = e.pop('TRACESTORE_PYTHONPATH')\n"
"        if old: e['PYTHONPATH'] = old\n"
"        else: e.pop('PYTHONPATH', None)\n"
"        ours = e.pop('TRACESTORE_MODULE_DIRS', '').split(':')\n"
"        sys.path[:] = [p for p in sys.path if p not in ours]\n"
"        for p in ours: sys.path_importer_cache.pop(p, None)\n";

int hostExeDir(char *zDir, size_t nDir){
  ssize_t n = readlink("/proc/self/exe", zDir, nDir-1);
  if( n<=0 ) return 1;
  zDir[n] = 0;
  if( strrchr(zDir, '/') ) *strrchr(zDir, '/') = 0;
  return 0;
}

void hostPythonBuildTreePath(void){
  char zExe[PATH_MAX];
  char zDir[PATH_MAX + 16];
  char *zPath = 0;
  size_t nPath = 0;
  DIR *pDir;
  struct dirent *pEnt;
  const char *zOld = getenv("PYTHONPATH");

  if( hostExeDir(zExe, sizeof(zExe)) ) return;
  snprintf(zDir, sizeof(zDir), "%s/python", zExe);
  pDir = opendir(zDir);
  if( pDir==0 ) return;
  while( (pEnt = readdir(pDir))!=0 ){
    size_t k;
    char *zNew;
    if( pEnt->d_name[0]=='.' ) continue;
    k = strlen(zDir) + strlen(pEnt->d_name) + 2;
    zNew = realloc(zPath, nPath + k + 1);
    if( zNew==0 ) break;
    zPath = zNew;
    nPath += (size_t)sprintf(zPath + nPath, "%s%s/%s", nPath ? ":" : "",
                             zDir, pEnt->d_name);
  }
  closedir(pDir);
  if( zPath==0 ) return;
  setenv("TRACESTORE_PYTHONPATH", zOld ? zOld : "", 1);
  setenv("TRACESTORE_MODULE_DIRS", zPath, 1);
  if( zOld && zOld[0] ){
    char *z = malloc(nPath + strlen(zOld) + 2);
    if( z ){
      sprintf(z, "%s:%s", zPath, zOld);
      setenv("PYTHONPATH", z, 1);
      free(z);
    }
  }else{
    setenv("PYTHONPATH", zPath, 1);
  }
  free(zPath);
}

int hostExecPython(const char *zWho, const char *zPython,
                   const char *zBootstrap, const char *zFirst, int nArg,
                   char **azArg){
  size_t n = strlen(zHostPythonRestorePath) + strlen(zBootstrap) + 1;
  char *zProgram = malloc(n);
  char **azArgv = calloc((size_t)nArg + 5, sizeof(char*));
  int i, k = 0;
  if( zProgram==0 || azArgv==0 ){
    hostFail("out of memory");
    free(zProgram);
    free(azArgv);
    return 1;
  }
  snprintf(zProgram, n, "%s%s", zHostPythonRestorePath, zBootstrap);
  azArgv[k++] = (char*)zPython;
  azArgv[k++] = "-c";
  azArgv[k++] = zProgram;
  if( zFirst ) azArgv[k++] = (char*)zFirst;
  for(i=0; i<nArg; i++) azArgv[k++] = azArg[i];
  azArgv[k] = 0;
  fflush(0);
  execvp(zPython, azArgv);
  hostFail("%s: %s: %s", zWho, zPython, strerror(errno));
  free(azArgv);
  free(zProgram);
  return 127;
}

int hostIsPythonInterpreter(const char *zArg){
  const char *z = strrchr(zArg, '/');
  z = z ? z+1 : zArg;
  if( strncmp(z, "python", 6)!=0 ) return 0;
  for(z+=6; *z; z++){
    if( !((*z>='0' && *z<='9') || *z=='.') ) return 0;
  }
  return 1;
}
