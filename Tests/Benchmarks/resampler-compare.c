// Why libsoxr: 60 s of 44.1 kHz stereo float to 48 kHz with libsamplerate's three sinc
// converters and soxr's HQ and VHQ. A one-off measurement behind a design choice, not part of
// the build (libsamplerate0-dev is not a dependency of the project):
//
//     apt-get install libsamplerate0-dev
//     gcc -O2 Tests/Benchmarks/resampler-compare.c -o /tmp/resampler-compare -lsamplerate -lsoxr -lm && /tmp/resampler-compare
#include <samplerate.h>
#include <soxr.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(void){
  const long inF=44100L*60; const long outF=48000L*60+1000;
  float *in=malloc(inF*2*sizeof(float)), *out=malloc(outF*2*sizeof(float));
  for(long i=0;i<inF;i++){in[2*i]=0.4f*sinf(2*M_PI*440*i/44100.0f)+0.2f*sinf(2*M_PI*5000*i/44100.0f);in[2*i+1]=in[2*i];}
  int types[]={SRC_SINC_BEST_QUALITY,SRC_SINC_MEDIUM_QUALITY,SRC_SINC_FASTEST};
  const char*names[]={"libsamplerate SINC_BEST","libsamplerate SINC_MEDIUM","libsamplerate SINC_FASTEST"};
  for(int k=0;k<3;k++){SRC_DATA d={0};d.data_in=in;d.input_frames=inF;d.data_out=out;d.output_frames=outF;d.src_ratio=48000.0/44100.0;
    double t=now();int e=src_simple(&d,types[k],2);double s=now()-t;printf("%s: %.3f s for 60 s (%.0fx real time) err=%d\n",names[k],s,60/s,e);}
  size_t odone=0; double t=now();
  soxr_quality_spec_t q=soxr_quality_spec(SOXR_HQ,0); soxr_io_spec_t io=soxr_io_spec(SOXR_FLOAT32_I,SOXR_FLOAT32_I);
  soxr_error_t e=soxr_oneshot(44100,48000,2,in,inF,NULL,out,outF,&odone,&io,&q,NULL);
  double s=now()-t; printf("soxr HQ: %.3f s for 60 s (%.0fx real time) %s\n",s,60/s,e?e:"ok");
  t=now(); q=soxr_quality_spec(SOXR_VHQ,0); e=soxr_oneshot(44100,48000,2,in,inF,NULL,out,outF,&odone,&io,&q,NULL);
  s=now()-t; printf("soxr VHQ: %.3f s for 60 s (%.0fx real time) %s\n",s,60/s,e?e:"ok");
  return 0;}
