// cfloor.h: the minibatch C floor (see cfloor.go).
#ifndef PPO_CFLOOR_H
#define PPO_CFLOOR_H
#include <stdint.h>

typedef struct cfloor cfloor;

cfloor *cfloor_new(int obs, int act, int hidden, int rows, int batch, uint64_t seed);
void cfloor_free(cfloor *f);
// cfloor_run takes n minibatch steps (gather, forward, loss gradient,
// backward, clipping, Adam) and returns the last loss.
double cfloor_run(cfloor *f, int n);
// cfloor_loss computes the loss of minibatch k and its gradient into the
// floor's gradient vector without an Adam step (for the gradient test).
double cfloor_loss(cfloor *f, int k);
int cfloor_params(cfloor *f);
float *cfloor_theta(cfloor *f);
float *cfloor_grad(cfloor *f);
#endif
