import CALSA
